/** CPU time a cooperative loop may take before it lets the event loop run. */
const SLICE_MS = 8;

/**
 * Lets timers, I/O and other requests run before long CPU work goes on, then stops that work
 * (by throwing the signal's reason) if `signal` aborted meanwhile.
 *
 * @example
 * ```ts
 * await yieldToEventLoop(signal);
 * ```
 */
export async function yieldToEventLoop(signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}

/** A clock for a loop of CPU work that must not hold the event loop for long. */
export interface TimeSlice {
  /** True once the current slice (8 ms) is used up: the loop should `await next()`. */
  due(): boolean;
  /** Yields to the event loop (see {@link yieldToEventLoop}) and starts a new slice. */
  next(): Promise<void>;
}

/**
 * Starts a {@link TimeSlice}: a loop checks `due()` per item (a clock read) and awaits `next()`
 * only when its slice is used up, so short work never pays for a yield and long work never
 * blocks for more than about one slice.
 *
 * @example
 * ```ts
 * const slice = createTimeSlice(signal);
 * for (const item of items) {
 *   if (slice.due()) await slice.next();
 * }
 * ```
 */
export function createTimeSlice(signal?: AbortSignal): TimeSlice {
  let started = performance.now();
  return {
    due: () => performance.now() - started >= SLICE_MS,
    async next() {
      await yieldToEventLoop(signal);
      started = performance.now();
    },
  };
}
