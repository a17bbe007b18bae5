// Event-loop stall measurement for the web tests (nothing here ships).

/** Runs `work` while a 10 ms interval records the longest gap between its ticks (the loop's stall). */
export async function watchLoop<T>(
  work: () => Promise<T>,
): Promise<{ value: T; maxGapMs: number; elapsedMs: number }> {
  let maxGapMs = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  try {
    const value = await work();
    const elapsedMs = performance.now() - started;
    // One more tick: a stall at the very end shows too.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { value, maxGapMs, elapsedMs };
  } finally {
    clearInterval(ticker);
  }
}
