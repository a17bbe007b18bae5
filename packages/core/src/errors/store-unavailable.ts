import { KsadkError } from './ksadk-error.js';

/** One operation on a shared store, as a `store_unavailable` error names it. */
export interface StoreOperation {
  /** The store's id, in the error's `details.store` (`'redis'`, `'postgres'`). */
  readonly store: string;
  /** The store's name in the message (`'Redis'`, `'PostgreSQL'`). */
  readonly storeName: string;
  /** What was being done, completing "<storeName> could not …" (`'save a memory'`). */
  readonly operation: string;
}

/** Options of {@link runStoreOperation}: the operation, its time bound and its signal. */
export interface RunStoreOperationOptions extends StoreOperation {
  /** Bound on the operation, in milliseconds; past it the call fails with `store_unavailable`. */
  readonly timeoutMs: number;
  /** Stops waiting: the call rejects at once with the signal's reason. */
  readonly signal?: AbortSignal;
}

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/\S*/gi;
const KEYWORD_PASSWORD = /password\s*=\s*\S+/gi;

/** A driver error's reason, short and without credentials: its code and its first line sans URLs. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n')[0] ?? '')
    .replace(URL_LIKE, '<url>')
    .replace(KEYWORD_PASSWORD, 'password=<redacted>')
    .slice(0, 160);
  return typeof code === 'string' && !line.includes(code) ? `${code}: ${line}` : line;
}

/**
 * A store driver's failure as {@link KsadkError} `store_unavailable`, for authors of shared stores:
 * the message is "<storeName> could not <operation>: <reason>", where the reason is the driver's
 * error code and the first line of its message (at most 160 characters) with every URL replaced
 * by `<url>` and every `password=…` by `password=<redacted>`, so neither a connection string nor a
 * password reaches logs; `details` is `{ store, operation }`. KsADK's own errors pass through
 * unchanged.
 *
 * @example
 * ```ts
 * try {
 *   await pool.query('SELECT 1');
 * } catch (error) {
 *   throw toStoreUnavailableError(error, {
 *     store: 'postgres',
 *     storeName: 'PostgreSQL',
 *     operation: 'check the connection',
 *   });
 * }
 * ```
 */
export function toStoreUnavailableError(error: unknown, operation: StoreOperation): KsadkError {
  if (KsadkError.isInstance(error)) return error;
  return new KsadkError(
    'store_unavailable',
    `${operation.storeName} could not ${operation.operation}: ${reasonOf(error)}`,
    { details: { store: operation.store, operation: operation.operation } },
  );
}

/**
 * Runs one operation against a shared store, bounded by `timeoutMs` and, when given, by `signal`
 * (which rejects at once with its reason). Driver errors and timeouts become {@link KsadkError}
 * `store_unavailable` ({@link toStoreUnavailableError}); KsADK's own errors pass through. Work
 * still running when the call gives up finishes (or fails) on its own, unobserved.
 *
 * @example
 * ```ts
 * const value = await runStoreOperation(
 *   { store: 'redis', storeName: 'Redis', operation: 'read a record', timeoutMs: 5000, signal },
 *   () => client.get(key),
 * );
 * ```
 */
export async function runStoreOperation<T>(
  options: RunStoreOperationOptions,
  work: () => Promise<T>,
): Promise<T> {
  const { timeoutMs, signal } = options;
  signal?.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const bounds = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    if (signal) {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  const running = work();
  try {
    return await Promise.race([running, bounds]);
  } catch (error) {
    running.catch(() => {}); // it finishes (or fails) on its own; nobody waits for it
    if (signal?.aborted && error === signal.reason) throw error;
    throw toStoreUnavailableError(error, options);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
