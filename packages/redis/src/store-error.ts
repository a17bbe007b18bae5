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
 * Runs one store operation against Redis, bounded by `timeoutMs`: driver errors and timeouts
 * become {@link KsadkError} `store_unavailable` (the message names the operation and the driver's
 * reason, never the URL or a password); KsADK's own errors pass through.
 */
export async function guarded<T>(
  operation: string,
  timeoutMs: number,
  work: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work(), deadline]);
  } catch (error) {
    if (KsadkError.isInstance(error)) throw error;
    throw new KsadkError('store_unavailable', `Redis could not ${operation}: ${reasonOf(error)}`, {
      details: { store: 'redis', operation },
    });
  } finally {
    clearTimeout(timer);
  }
}
