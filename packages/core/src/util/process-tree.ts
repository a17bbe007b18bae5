import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';

/**
 * The one kit for stopping what a child process started, used by sandbox commands and stdio MCP
 * servers alike. A child leads its own process group (it is spawned `detached`), and carries a
 * random marker in its environment ({@link TREE_MARKER_VARIABLE}) that every descendant inherits.
 * Killing the tree stops the group, then kills every descendant of the leader still linked to it
 * and every process carrying the marker — which finds what left the group and the leader's
 * lineage (`setsid`, a double fork, a daemon reparented to init) — then the group. Groups still
 * running when the host exits are killed by an `exit` hook. Linux reads `/proc`; elsewhere only
 * the group is signalled.
 */

/** The environment variable that marks every process of one tree. */
export const TREE_MARKER_VARIABLE = 'KSADK_PROCESS_TREE';

/** Reads of `/proc` in flight at once, so a huge process table does not flood the thread pool. */
const SCAN_BATCH = 256;
/** Rounds of find-and-kill: a process forked while the first round killed is found by the next. */
const KILL_ROUNDS = 2;

/** A new marker for one tree. */
export function newTreeMarker(): string {
  return randomBytes(12).toString('hex');
}

/** `env` with the tree's marker added (the child's whole environment). */
export function markedEnvironment(
  env: Readonly<Record<string, string>>,
  marker: string,
): Record<string, string> {
  return { ...env, [TREE_MARKER_VARIABLE]: marker };
}

/**
 * Sends `signal` to the process group led by `pid` (on Windows, where there are no groups, to
 * the process). A group that is gone already is not an error.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // ESRCH: the group has ended.
  }
}

const signalProcess = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
};

/** The parent of a process, from its `/proc/<pid>/stat` text. */
function parentOf(stat: string): number {
  // Fields after the command name (which may hold spaces and parentheses): state, ppid…
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** What one scan of `/proc` found: each process's parent, and those carrying the marker. */
interface ProcessTable {
  readonly children: Map<number, number[]>;
  readonly marked: number[];
}

const addChild = (table: ProcessTable, ppid: number, pid: number): void => {
  const list = table.children.get(ppid);
  if (list) list.push(pid);
  else table.children.set(ppid, [pid]);
};

const carries = (environ: Buffer, needle: Buffer): boolean => {
  const at = environ.indexOf(needle);
  // At the start, or right after the NUL that ends the previous variable.
  return at === 0 || (at > 0 && environ[at - 1] === 0);
};

const markerNeedle = (marker: string): Buffer => Buffer.from(`${TREE_MARKER_VARIABLE}=${marker}\0`);

/** Live descendants of `pid` in the table. */
function below(pid: number, table: ProcessTable): number[] {
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    for (const child of table.children.get(pending.pop()!) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

const processIds = (entries: readonly string[]): number[] =>
  entries.filter((entry) => /^\d+$/.test(entry)).map(Number);

/** Bytes of a process's environment looked at: the marker sits among the inherited variables. */
const MAX_ENVIRON_BYTES = 1024 * 1024;

async function readEnviron(pid: number): Promise<Buffer> {
  const handle = await open(`/proc/${pid}/environ`, 'r');
  try {
    const buffer = Buffer.alloc(MAX_ENVIRON_BYTES);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function readEnvironSync(pid: number): Buffer {
  const fd = openSync(`/proc/${pid}/environ`, 'r');
  try {
    const buffer = Buffer.alloc(MAX_ENVIRON_BYTES);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Reads the process table without blocking the event loop. */
async function scan(marker: string | undefined): Promise<ProcessTable> {
  const table: ProcessTable = { children: new Map(), marked: [] };
  let pids: number[];
  try {
    pids = processIds(await readdir('/proc'));
  } catch {
    return table;
  }
  const needle = marker ? markerNeedle(marker) : undefined;
  for (let start = 0; start < pids.length; start += SCAN_BATCH) {
    await Promise.all(
      pids.slice(start, start + SCAN_BATCH).map(async (pid) => {
        try {
          addChild(table, parentOf(await readFile(`/proc/${pid}/stat`, 'utf8')), pid);
          if (needle && pid !== process.pid && carries(await readEnviron(pid), needle))
            table.marked.push(pid);
        } catch {
          // The process ended while we looked, or its environment is not ours to read.
        }
      }),
    );
  }
  return table;
}

/** The same scan, synchronous: only for the exit hook, where nothing asynchronous runs. */
function scanSync(marker: string | undefined): ProcessTable {
  const table: ProcessTable = { children: new Map(), marked: [] };
  let pids: number[];
  try {
    pids = processIds(readdirSync('/proc'));
  } catch {
    return table;
  }
  const needle = marker ? markerNeedle(marker) : undefined;
  for (const pid of pids) {
    try {
      addChild(table, parentOf(readFileSync(`/proc/${pid}/stat`, 'utf8')), pid);
      if (needle && pid !== process.pid && carries(readEnvironSync(pid), needle))
        table.marked.push(pid);
    } catch {
      // Ended, or not ours.
    }
  }
  return table;
}

const members = (pid: number, table: ProcessTable): number[] => [
  ...new Set([...below(pid, table), ...table.marked]),
];

/**
 * Kills the tree of the group led by `pid`: the group is stopped (no new children), then every
 * descendant of the leader and every process carrying `marker` is killed — twice over, for a
 * fork that raced the first round — then the group. After the leader has exited
 * (`leaderExited`), its id may name another process by now, so only the marker and the group
 * count: what it left behind still carries the marker.
 */
export async function killTree(
  pid: number,
  marker?: string,
  options: { leaderExited?: boolean } = {},
): Promise<void> {
  if (options.leaderExited) {
    // At once, while the group id cannot name anything else yet: its members still hold it.
    signalGroup(pid, 'SIGKILL');
    for (let round = 0; round < KILL_ROUNDS; round += 1) {
      const { marked } = await scan(marker);
      for (const member of marked) signalProcess(member, 'SIGKILL');
      if (marked.length === 0) break;
    }
    return;
  }
  signalGroup(pid, 'SIGSTOP');
  for (let round = 0; round < KILL_ROUNDS; round += 1) {
    const found = members(pid, await scan(marker));
    for (const member of found) signalProcess(member, 'SIGKILL');
    if (found.length === 0) break;
  }
  signalGroup(pid, 'SIGKILL');
}

function killTreeSync(pid: number, marker: string | undefined): void {
  signalGroup(pid, 'SIGSTOP');
  for (const member of members(pid, scanSync(marker))) signalProcess(member, 'SIGKILL');
  signalGroup(pid, 'SIGKILL');
}

/** Trees alive in this process, killed if the process exits while they run: leader → marker. */
const live = new Map<number, string | undefined>();

const killAllOnExit = (): void => {
  for (const [pid, marker] of live) killTreeSync(pid, marker);
  live.clear();
};

/**
 * Records a running tree; the first one installs the hook that kills them all when this process
 * exits (the groups are detached: without it they would outlive the host). The hook is removed
 * with the last tree, and never keeps the event loop alive.
 */
export function trackTree(pid: number, marker?: string): void {
  if (live.size === 0) process.on('exit', killAllOnExit);
  live.set(pid, marker);
}

/** Forgets a tree that ended; the last one removes the exit hook. */
export function untrackTree(pid: number): void {
  if (!live.delete(pid)) return;
  if (live.size === 0) process.off('exit', killAllOnExit);
}

/** How many trees are tracked (for tests and diagnostics). */
export function trackedTrees(): number {
  return live.size;
}
