import { readdirSync, readFileSync } from 'node:fs';

/** Groups alive in this process, killed if the process exits while they run. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** SIGKILLs a process group (nothing happens when it is gone). */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** Live descendants of `pid` (Linux: from `/proc`; elsewhere none are found). */
function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces and parentheses): state, ppid…
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()!) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

/**
 * Kills a running group and every descendant of its leader: the group is stopped first (no
 * new children), then descendants that left the group (`setsid`, bubblewrap's namespace init
 * before its parent-death signal is armed) are killed, then the group.
 */
export function killTree(pid: number): void {
  try {
    process.kill(-pid, 'SIGSTOP');
  } catch {
    // ESRCH: the group is gone already.
  }
  for (const descendant of descendantsOf(pid)) {
    try {
      process.kill(descendant, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  killGroup(pid);
}

/** Records a running group; the first one installs the hook that kills them all on exit. */
export function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Groups are detached: without this they would outlive a host that exits mid-command.
    process.once('exit', () => {
      for (const live of liveGroups) killTree(live);
    });
  }
  liveGroups.add(pid);
}

/** Forgets a group that ended. */
export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}
