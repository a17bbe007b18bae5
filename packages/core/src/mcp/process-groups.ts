/**
 * The process groups of the stdio MCP servers this process started. Servers run detached (each
 * leads its own group, so a signal reaches its children too); without this hook they would
 * outlive a host that exits without closing its toolsets. The `exit` listener is installed with
 * the first group and removed with the last, and listeners never keep the event loop alive.
 */
const running = new Set<number>();

const killAll = (): void => {
  for (const pid of running) signalProcessGroup(pid, 'SIGKILL');
  running.clear();
};

/**
 * Sends `signal` to the process group led by `pid` (on Windows, where there are no groups, to
 * the process). A group that is gone already is not an error.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // ESRCH: the group has ended.
  }
}

/** Remembers a running group; the first one installs the exit hook. */
export function trackProcessGroup(pid: number): void {
  if (running.size === 0) process.on('exit', killAll);
  running.add(pid);
}

/** Forgets a group that ended; the last one removes the exit hook. */
export function untrackProcessGroup(pid: number): void {
  if (!running.delete(pid)) return;
  if (running.size === 0) process.off('exit', killAll);
}

/** How many groups are tracked (for tests and diagnostics). */
export function trackedProcessGroups(): number {
  return running.size;
}
