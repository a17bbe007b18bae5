// A shared approval store without a server, for this example: the parent process keeps the
// in-memory store and serves it to its child processes over their IPC channel. A deployment
// shares a Redis or PostgreSQL store instead (KSADK_APPROVAL_STORE=redis://… with @ksadk/redis).
import type { ChildProcess } from 'node:child_process';
import { type ApprovalStore, KsadkError, type KsadkErrorCode } from '@ksadk/core';

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
] as const;

type StoreCall = { id: number; method: string; args: unknown[] };
type StoreAnswer = {
  id: number;
  value?: unknown;
  error?: { code: KsadkErrorCode; message: string };
};

/** In the parent: answers the child's store calls (spawn it with `serialization: 'advanced'`). */
export function serveApprovalStore(child: ChildProcess, store: ApprovalStore): void {
  const methods = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  child.on('message', (call: StoreCall) => {
    const reply = (answer: Omit<StoreAnswer, 'id'>) => {
      if (child.connected) child.send({ id: call.id, ...answer });
    };
    const known = (METHODS as readonly string[]).includes(call.method);
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

/** In a child: the parent's approval store. */
export function parentApprovalStore(): ApprovalStore {
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
        const id = next++;
        waiting.set(id, { resolve, reject });
        process.send?.({ id, method, args });
      });
  return {
    shared: true,
    ...Object.fromEntries(METHODS.map((method) => [method, call(method)])),
  } as unknown as ApprovalStore;
}
