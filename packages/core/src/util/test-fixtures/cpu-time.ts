// CPU-time measurement for the tests' speed bounds (nothing here ships).

/**
 * The CPU time (user + system, ms) the process spent while `work` ran, and its result. Unlike the
 * wall clock, it does not grow when a loaded machine leaves the process unscheduled, so a bound on
 * it fails for work that grew, not for a busy CI machine.
 */
export async function cpuTimeOf<T>(
  work: () => Promise<T> | T,
): Promise<{ value: T; cpuMs: number }> {
  const before = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}
