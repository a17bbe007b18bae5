import { KsadkError } from '@ksadk/core';

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/\S*/gi;

/** A driver error's reason, short and without credentials: its code, or its first line sans URLs. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n')[0] ?? '').replace(URL_LIKE, '<url>').slice(0, 160);
  return typeof code === 'string' && !line.includes(code) ? `${code}: ${line}` : line;
}

/**
 * Runs one store operation against Redis, bounded by `timeoutMs` and, when given, by `signal`
 * (which rejects at once with its reason): driver errors and timeouts become {@link KsadkError}
 * `store_unavailable` (the message names the operation and the driver's reason, never the URL or
 * a password); KsADK's own errors pass through.
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
    running.catch(() => {}); // it finishes (or fails) on its own; nobody waits for it
    if (KsadkError.isInstance(error) || (signal?.aborted && error === signal.reason)) throw error;
    throw new KsadkError('store_unavailable', `Redis could not ${operation}: ${reasonOf(error)}`, {
      details: { store: 'redis', operation },
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
