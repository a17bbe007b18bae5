import type { ChildProcess } from 'node:child_process';
import { KsadkError, type KsadkErrorCode } from '../errors/ksadk-error.js';
import type { ApprovalStore } from '../gateway/approval/store-types.js';

/** The store methods served over the channel; any other name answers `undefined`. */
const METHODS = [
  'create',
  'get',
  'findOpen',
  'transition',
  'listRequests',
  'saveStandingGrant',
  'getStandingGrant',
  'findStandingGrants',
  'listStandingGrants',
  'revokeStandingGrant',
  'appendAudit',
  'listAudit',
] as const satisfies readonly (keyof ApprovalStore)[];

type StoreCall = { id: number; method: string; args: unknown[] };
type StoreAnswer = {
  id: number;
  value?: unknown;
  error?: { code: KsadkErrorCode; message: string };
};

/**
 * Serves `store` to a child process over its IPC channel (spawn it with `stdio: [..., 'ipc']` and
 * `serialization: 'advanced'`, so dates survive): one approval store shared by several processes
 * without a Redis or PostgreSQL server, for tests and offline examples of work that pauses in one
 * process and resumes in another. The child uses {@link approvalStoreOverIpc}.
 *
 * @example
 * ```ts
 * const child = spawn(process.execPath, ['resume.js'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
 * serveApprovalStoreOverIpc(child, createInMemoryApprovalStore());
 * ```
 */
export function serveApprovalStoreOverIpc(child: ChildProcess, store: ApprovalStore): void {
  const methods = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  child.on('message', (call: StoreCall) => {
    const reply = (answer: Omit<StoreAnswer, 'id'>) => {
      if (child.connected) child.send({ id: call.id, ...answer });
    };
    const known = (METHODS as readonly string[]).includes(call?.method);
    Promise.resolve()
      .then(() => (known ? methods[call.method]!.apply(store, call.args) : undefined))
      .then(
        (value) => reply({ value }),
        (error: unknown) =>
          reply({
            error: {
              code: KsadkError.isInstance(error) ? error.code : 'store_unavailable',
              message: error instanceof Error ? error.message : String(error),
            },
          }),
      );
  });
}

/**
 * In a child process started by one that calls {@link serveApprovalStoreOverIpc}: the parent's
 * approval store (`shared: true`, so gateways in several processes may use it). A store error in
 * the parent is a `KsadkError` with its code here.
 *
 * @example
 * ```ts
 * const gateway = createToolGateway({ approvalStore: approvalStoreOverIpc() });
 * ```
 */
export function approvalStoreOverIpc(): ApprovalStore {
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  process.on('message', (answer: StoreAnswer) => {
    const pending = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.error) pending?.reject(new KsadkError(answer.error.code, answer.error.message));
    else pending?.resolve(answer.value);
  });
  const call =
    (method: string) =>
    (...args: unknown[]): Promise<unknown> =>
      new Promise((resolve, reject) => {
        if (!process.send) {
          reject(new KsadkError('invalid_config', 'This process has no IPC channel to a parent.'));
          return;
        }
        const id = next++;
        waiting.set(id, { resolve, reject });
        process.send({ id, method, args });
      });
  return {
    shared: true,
    ...Object.fromEntries(METHODS.map((method) => [method, call(method)])),
  } as unknown as ApprovalStore;
}
