// Event-loop stall measurement for the tests (nothing here ships).

/** What a watch of the event loop saw. */
export interface LoopWatch {
  /**
   * The longest gap between two 10 ms ticks, counted only as far as this process used the CPU in
   * it: on a machine so loaded that the process is not scheduled for half a second, the wall-clock
   * gap says nothing about the code under test, while a loop held by synchronous work burns CPU
   * for as long as it is held. The CPU time includes every thread of the process (a worker's too),
   * so the figure never hides a real stall; it is never more than the wall-clock gap.
   */
  readonly maxGapMs: number;
  /** The longest wall-clock gap between two ticks. */
  readonly maxWallGapMs: number;
  /** The peak resident set size over the watch, less the size at its start. */
  readonly rssGrowth: number;
}

/** Starts watching the event loop; `stop()` ends the watch and says what it saw. */
export function startLoopWatch(): { stop(): LoopWatch } {
  const rss = process.memoryUsage().rss;
  let peak = rss;
  let maxGapMs = 0;
  let maxWallGapMs = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const ticker = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const wallGap = now - last;
    maxWallGapMs = Math.max(maxWallGapMs, wallGap);
    maxGapMs = Math.max(maxGapMs, Math.min(wallGap, (cpu.user + cpu.system) / 1000));
    last = now;
    lastCpu = process.cpuUsage();
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  return {
    stop() {
      clearInterval(ticker);
      return { maxGapMs, maxWallGapMs, rssGrowth: peak - rss };
    },
  };
}

/** Runs `work` under a watch of the event loop (see {@link LoopWatch}). */
export async function watchLoop<T>(
  work: () => Promise<T>,
): Promise<LoopWatch & { value: T; elapsedMs: number }> {
  const watch = startLoopWatch();
  const started = performance.now();
  let value: T;
  try {
    value = await work();
  } catch (error) {
    watch.stop();
    throw error;
  }
  const elapsedMs = performance.now() - started;
  // One more tick: a stall at the very end shows too.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { ...watch.stop(), value, elapsedMs };
}
