import { setTimeout as sleep } from 'node:timers/promises';

/** Error names of a sandbox that exists but is not reachable yet (SDK and Python spellings). */
const NOT_FOUND_NAMES = new Set([
  'NotFoundError',
  'FileNotFoundError',
  'SandboxNotFoundError',
  'NotFoundException',
  'FileNotFoundException',
  'SandboxNotFoundException',
]);
/** The longest pause between two attempts. */
const MAX_DELAY_MS = 1_000;

/** How startup is retried. */
export interface StartupRetry {
  /** Attempts in all (at least 1). */
  attempts: number;
  /** Base delay: attempt `n` (from 0) is followed by `min(delayMs · 2^n, 1000)` ms. */
  delayMs: number;
}

/** Whether an error means "not found yet" (the only kind retried). */
export function isNotFoundLike(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const name = (error as { name?: unknown }).name;
  return (
    (typeof name === 'string' && NOT_FOUND_NAMES.has(name)) ||
    NOT_FOUND_NAMES.has((error as object).constructor?.name ?? '')
  );
}

/** The pause after attempt `attempt` (from 0). */
export function retryDelay(retry: StartupRetry, attempt: number): number {
  return Math.min(retry.delayMs * 2 ** attempt, MAX_DELAY_MS);
}

/** Runs `action`, retrying only not-found-like errors; the last error is rethrown. */
export async function withStartupRetry<T>(
  retry: StartupRetry,
  action: () => Promise<T>,
): Promise<T> {
  const attempts = Math.max(1, Math.floor(retry.attempts));
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await action();
    } catch (error) {
      if (attempt + 1 >= attempts || !isNotFoundLike(error)) throw error;
      await sleep(retryDelay(retry, attempt));
    }
  }
}
