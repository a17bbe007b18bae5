import { AsyncLocalStorage } from 'node:async_hooks';
import { checkOptions } from '../errors/check-options.js';
import { type ApprovalMode, parseApprovalMode } from '../gateway/approval/mode.js';

/**
 * Who and what a tool call runs for. Every store a tool touches (read state, workspace root,
 * result files, sandbox sessions, memory, pending approvals) is keyed by these values, so
 * nothing leaks across accounts or sessions under concurrency.
 */
export interface InvocationContext {
  /** Tenant / account. */
  readonly accountId?: string;
  /** End user within the account. */
  readonly userId?: string;
  /** Conversation session. */
  readonly sessionId?: string;
  /** The agent being run. */
  readonly agentId?: string;
  /** One agent invocation (a run); threads through results and events. */
  readonly invocationId?: string;
  /** Request-scoped approval mode; wins over the gateway option and the environment. */
  readonly approvalMode?: ApprovalMode;
  /** Free-form, host-owned metadata. Never shown to the model by KsADK. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** An {@link InvocationContext} given to {@link runWithInvocationContext}; the mode may use an alias. */
export type InvocationContextInput = Omit<InvocationContext, 'approvalMode'> & {
  /** `ask`, `risk`, `full`, or the aliases `strict` (→ `risk`) and `off` (→ `full`). */
  approvalMode?: string;
};

const storage = new AsyncLocalStorage<InvocationContext>();
const EMPTY: InvocationContext = Object.freeze({});

/**
 * Runs `fn` with `context` as the current invocation context. Fields left undefined are
 * inherited from the enclosing context, if any; everything else is replaced.
 *
 * @throws {KsadkError} `invalid_config` when `approvalMode` is not a known mode.
 *
 * @example
 * ```ts
 * await runWithInvocationContext({ accountId: 'acme', sessionId: 's1' }, () =>
 *   gateway.invoke(writeTool, { path: 'a.txt', content: 'hi' }),
 * );
 * ```
 */
export function runWithInvocationContext<T>(context: InvocationContextInput, fn: () => T): T {
  checkOptions(
    context,
    {
      accountId: true,
      userId: true,
      sessionId: true,
      agentId: true,
      invocationId: true,
      approvalMode: true,
      metadata: true,
    },
    'runWithInvocationContext()',
  );
  const parent = storage.getStore();
  const merged: Record<string, unknown> = parent ? { ...parent } : {};
  for (const [key, value] of Object.entries(context)) {
    if (value !== undefined) merged[key] = value;
  }
  if (context.approvalMode !== undefined) {
    merged['approvalMode'] = parseApprovalMode(
      context.approvalMode,
      'invocation context approvalMode',
    );
  }
  return storage.run(Object.freeze(merged) as InvocationContext, fn);
}

/**
 * Runs `fn` with `defaults` filling only the fields the current invocation context leaves unset
 * (host-set values always win). Adapters use it to bind calls to the framework's own session,
 * user or thread when the host did not say.
 *
 * @example
 * ```ts
 * await runWithInvocationDefaults({ sessionId: threadId }, () => gateway.invoke(tool, args));
 * ```
 */
export function runWithInvocationDefaults<T>(
  defaults: Omit<InvocationContext, 'approvalMode' | 'metadata'>,
  fn: () => T,
): T {
  const current = storage.getStore() ?? EMPTY;
  const missing: Record<string, string> = {};
  for (const [key, value] of Object.entries(defaults)) {
    if (
      typeof value === 'string' &&
      value !== '' &&
      current[key as keyof InvocationContext] === undefined
    )
      missing[key] = value;
  }
  return Object.keys(missing).length === 0 ? fn() : runWithInvocationContext(missing, fn);
}

/** The current invocation context, or `undefined` outside {@link runWithInvocationContext}. */
export function getInvocationContext(): InvocationContext | undefined {
  return storage.getStore();
}

/** The current invocation context, or an empty one. */
export function getInvocationContextOrEmpty(): InvocationContext {
  return storage.getStore() ?? EMPTY;
}
