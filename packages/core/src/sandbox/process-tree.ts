import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

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

/** The parent of each process, from one `/proc/<pid>/stat` text. */
function parentOf(stat: string): number {
  // Fields after the command name (which may hold spaces and parentheses): state, ppid…
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Walks the children map from `pid` down. */
function below(pid: number, children: Map<number, number[]>): number[] {
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

const addChild = (children: Map<number, number[]>, ppid: number, pid: number): void => {
  const list = children.get(ppid);
  if (list) list.push(pid);
  else children.set(ppid, [pid]);
};

/**
 * Live descendants of `pid` (Linux: from `/proc`; elsewhere none are found), read without
 * blocking the event loop: a command that forked thousands of processes must not stall the host.
 */
async function descendantsOf(pid: number): Promise<number[]> {
  let entries: string[];
  try {
    entries = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  // A bounded number of reads in flight, so a huge process table does not flood the thread pool.
  for (let start = 0; start < entries.length; start += 256) {
    await Promise.all(
      entries.slice(start, start + 256).map(async (entry) => {
        try {
          addChild(
            children,
            parentOf(await readFile(`/proc/${entry}/stat`, 'utf8')),
            Number(entry),
          );
        } catch {
          // The process ended while we looked.
        }
      }),
    );
  }
  return below(pid, children);
}

/** The same scan, synchronous: only for the exit hook, where nothing asynchronous runs. */
function descendantsOfSync(pid: number): number[] {
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
      addChild(children, parentOf(readFileSync(`/proc/${entry}/stat`, 'utf8')), Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return below(pid, children);
}

const stopGroup = (pid: number): void => {
  try {
    process.kill(-pid, 'SIGSTOP');
  } catch {
    // ESRCH: the group is gone already.
  }
};

const killAll = (pids: readonly number[]): void => {
  for (const descendant of pids) {
    try {
      process.kill(descendant, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
};

/**
 * Kills a running group and every descendant of its leader: the group is stopped first (no
 * new children), then descendants that left the group (`setsid`, bubblewrap's namespace init
 * before its parent-death signal is armed) are killed, then the group.
 */
export async function killTree(pid: number): Promise<void> {
  stopGroup(pid);
  killAll(await descendantsOf(pid));
  killGroup(pid);
}

/** Records a running group; the first one installs the hook that kills them all on exit. */
export function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Groups are detached: without this they would outlive a host that exits mid-command.
    process.once('exit', () => {
      for (const live of liveGroups) {
        stopGroup(live);
        killAll(descendantsOfSync(live));
        killGroup(live);
      }
    });
  }
  liveGroups.add(pid);
}

/** Forgets a group that ended. */
export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}
