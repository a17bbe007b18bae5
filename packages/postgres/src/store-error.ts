import { KsadkError } from '@ksadk/core';

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

/** Wraps a driver failure as {@link KsadkError} `store_unavailable`; KsADK's own errors pass through. */
export function storeError(operation: string, error: unknown): unknown {
  if (KsadkError.isInstance(error)) return error;
  return new KsadkError(
    'store_unavailable',
    `PostgreSQL could not ${operation}: ${reasonOf(error)}`,
    { details: { store: 'postgres', operation } },
  );
}

/**
 * Runs one store operation bounded by `timeoutMs` and, when given, by `signal` (which rejects at
 * once with its reason): driver errors and timeouts become `store_unavailable`, without the
 * connection string or password in the message.
 */
export async function guarded<T>(
  operation: string,
  timeoutMs: number,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
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
    if (signal?.aborted && error === signal.reason) {
      running.catch(() => {}); // it finishes (or fails) on its own; nobody waits for it
      throw error;
    }
    running.catch(() => {});
    throw storeError(operation, error);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
