/** Timing of the restarts of a stdio MCP server that keeps stopping. */
export interface RestartBackoffOptions {
  /** Wait before the first restart. @default 500 */
  initialMs?: number;
  /** Longest wait. @default 30000 */
  maxMs?: number;
  /** A process that ran this long was healthy: its crash starts the sequence over. @default 60000 */
  healthyMs?: number;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** The restart schedule of one server. */
export interface RestartBackoff {
  /** A process started now. */
  started(): void;
  /** The process stopped unexpectedly (or could not be started): the next start must wait. */
  failed(): void;
  /** Milliseconds to wait before the next start may begin (0: now). */
  waitMs(): number;
  /** When the next start may begin, if it must wait. */
  notBefore(): number | undefined;
}

/**
 * Exponential back-off for restarts: 0.5 s, 1 s, 2 s, 4 s… up to 30 s after consecutive
 * failures; a process that ran for the healthy period resets the sequence.
 */
export function createRestartBackoff(options: RestartBackoffOptions = {}): RestartBackoff {
  const initialMs = options.initialMs ?? 500;
  const maxMs = options.maxMs ?? 30_000;
  const healthyMs = options.healthyMs ?? 60_000;
  const now = options.now ?? Date.now;
  let failures = 0;
  let startedAt: number | undefined;
  let next: number | undefined;
  return {
    started() {
      startedAt = now();
    },
    failed() {
      const at = now();
      if (startedAt !== undefined && at - startedAt >= healthyMs) failures = 0;
      startedAt = undefined;
      failures += 1;
      next = at + Math.min(maxMs, initialMs * 2 ** Math.min(failures - 1, 30));
    },
    waitMs() {
      return next === undefined ? 0 : Math.max(0, next - now());
    },
    notBefore() {
      return next !== undefined && next > now() ? next : undefined;
    },
  };
}
