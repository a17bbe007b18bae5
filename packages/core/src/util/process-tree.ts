import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The one kit for stopping what a child process started, used by sandbox commands and stdio MCP
 * servers alike. A child leads its own process group (it is spawned `detached`), and carries a
 * random marker in its environment ({@link TREE_MARKER_VARIABLE}) that every descendant inherits.
 * Killing the tree stops the group, then kills every descendant of the leader still linked to it
 * and every process carrying the marker — which finds what left the group and the leader's
 * lineage (`setsid`, a double fork, a daemon reparented to init) — then the group. Trees still
 * running when the host exits are killed by an `exit` hook. Linux reads `/proc`; elsewhere only
 * the group is signalled.
 */

/** The environment variable that marks every process of one tree. */
export const TREE_MARKER_VARIABLE = 'KSADK_PROCESS_TREE';

/** After a child exits, how long its last buffered output may take to arrive. */
export const OUTPUT_DRAIN_MS = 200;
/** After a SIGKILL, how long to wait for the child's exit before giving up on it. */
export const EXIT_WAIT_AFTER_KILL_MS = 2_000;

/** Processes looked at between two turns of the event loop. */
const SCAN_CHUNK = 64;
/** Rounds of find-and-kill: a process forked while the first round killed is found by the next. */
const KILL_ROUNDS = 2;
/** Bytes of a process's environment looked at: the marker sits among the inherited variables. */
const MAX_ENVIRON_BYTES = 1024 * 1024;

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

/** One buffer for every `/proc/<pid>/stat` read (a line of a few hundred bytes). */
const statBuffer = Buffer.alloc(4096);

/** A process's parent and start time (clock ticks since boot), from `/proc/<pid>/stat`. */
function statOf(pid: number): { ppid: number; start: number } | undefined {
  let text: string;
  try {
    // open/read/close into one buffer: a third of readFileSync's cost, for every process.
    const fd = openSync(`/proc/${pid}/stat`, 'r');
    try {
      text = statBuffer.toString('latin1', 0, readSync(fd, statBuffer, 0, statBuffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces and parentheses): state (3), ppid (4)…
  // start time is field 22.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), start: Number(fields[19]) };
}

/** Up to 1 MiB of a process's environment, or nothing when it is not ours to read. */
function environOf(pid: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(Math.min(MAX_ENVIRON_BYTES, 64 * 1024));
    let data = buffer;
    let filled = 0;
    for (;;) {
      if (filled === data.length) {
        if (data.length >= MAX_ENVIRON_BYTES) break;
        const grown = Buffer.alloc(Math.min(MAX_ENVIRON_BYTES, data.length * 4));
        data.copy(grown, 0, 0, filled);
        data = grown;
      }
      const read = readSync(fd, data, filled, data.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return data.subarray(0, filled);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

const carries = (environ: Buffer, needle: Buffer): boolean => {
  const at = environ.indexOf(needle);
  // At the start, or right after the NUL that ends the previous variable.
  return at === 0 || (at > 0 && environ[at - 1] === 0);
};

/** What one look at `/proc` found: each process's children, and those carrying the marker. */
interface ProcessTable {
  readonly children: Map<number, number[]>;
  readonly marked: number[];
}

/** Which processes to look at, and for what. */
interface ScanSpec {
  readonly marker: string | undefined;
  /** Only processes started at or after this (the leader's start) can carry the marker. */
  readonly since: number | undefined;
}

function lookAt(table: ProcessTable, pid: number, spec: ScanSpec, needle: Buffer | undefined) {
  const stat = statOf(pid);
  if (!stat) return;
  const list = table.children.get(stat.ppid);
  if (list) list.push(pid);
  else table.children.set(stat.ppid, [pid]);
  if (!needle || pid === process.pid) return;
  if (spec.since !== undefined && stat.start < spec.since) return;
  const environ = environOf(pid);
  if (environ && carries(environ, needle)) table.marked.push(pid);
}

const processIds = (): number[] => {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
};

const needleOf = (marker: string | undefined): Buffer | undefined =>
  marker ? Buffer.from(`${TREE_MARKER_VARIABLE}=${marker}\0`) : undefined;

/** Scans asked for while one is being prepared: one pass over `/proc` answers them all. */
let pending: { spec: ScanSpec; resolve: (table: ProcessTable) => void }[] = [];

/**
 * Reads the process table a chunk at a time, yielding between chunks: a few microseconds per
 * process, no thread-pool round trips (which a loaded host makes slow), and the event loop keeps
 * turning however many processes there are. Only processes started after a leader have their
 * environment read. Scans asked for at the same moment (fifty commands ending together) share
 * one pass.
 */
function scan(spec: ScanSpec): Promise<ProcessTable> {
  return new Promise((resolve) => {
    pending.push({ spec, resolve });
    if (pending.length === 1) setImmediate(() => void scanPending());
  });
}

async function scanPending(): Promise<void> {
  const batch = pending;
  pending = [];
  const tables = batch.map(() => ({ children: new Map(), marked: [] }) as ProcessTable);
  const needles = batch.map(({ spec }) => needleOf(spec.marker));
  const pids = processIds();
  for (let start = 0; start < pids.length; start += SCAN_CHUNK) {
    if (start > 0) await nextTurn();
    for (const pid of pids.slice(start, start + SCAN_CHUNK)) {
      const stat = statOf(pid);
      if (!stat) continue;
      let environ: Buffer | undefined | null = null;
      for (const [index, { spec }] of batch.entries()) {
        const table = tables[index]!;
        const list = table.children.get(stat.ppid);
        if (list) list.push(pid);
        else table.children.set(stat.ppid, [pid]);
        const needle = needles[index];
        if (!needle || pid === process.pid) continue;
        if (spec.since !== undefined && stat.start < spec.since) continue;
        // Read once for every tree that needs it.
        if (environ === null) environ = environOf(pid);
        if (environ && carries(environ, needle)) table.marked.push(pid);
      }
    }
  }
  for (const [index, { resolve }] of batch.entries()) resolve(tables[index]!);
}

/** The same scan in one go: only for the exit hook, where nothing asynchronous runs. */
function scanSync(spec: ScanSpec): ProcessTable {
  const table: ProcessTable = { children: new Map(), marked: [] };
  const needle = needleOf(spec.marker);
  for (const pid of processIds()) lookAt(table, pid, spec, needle);
  return table;
}

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

const members = (pid: number, table: ProcessTable): number[] => [
  ...new Set([...below(pid, table), ...table.marked]),
];

/** A running child process, its group and everything it starts. */
export interface ProcessTree {
  readonly pid: number;
  /**
   * Kills the tree: the group is stopped (no new children), then every descendant of the leader
   * and every process carrying the marker is killed — twice over, for a fork that raced the first
   * round — then the group. After the leader has exited (`leaderExited`) its id may name another
   * process by now, so only the group (at once) and the marker count: what it left behind still
   * carries the marker.
   */
  kill(options?: { leaderExited?: boolean }): Promise<void>;
  /** Forgets the tree (it ended); the last one removes the exit hook. */
  untrack(): void;
}

/** Trees alive in this process, killed if the process exits while they run. */
const live = new Map<number, ScanSpec>();

const killAllOnExit = (): void => {
  for (const [pid, spec] of live) {
    signalGroup(pid, 'SIGSTOP');
    for (const member of members(pid, scanSync(spec))) signalProcess(member, 'SIGKILL');
    signalGroup(pid, 'SIGKILL');
  }
  live.clear();
};

/**
 * Tracks a child just spawned (`detached`, with `marker` in its environment): the first tree
 * installs the hook that kills them all when this process exits (the groups are detached:
 * without it they would outlive the host). The hook never keeps the event loop alive.
 */
export function trackTree(pid: number, marker: string | undefined): ProcessTree {
  // Read now, while the leader lives: what it starts begins later than this.
  const spec: ScanSpec = { marker, since: statOf(pid)?.start };
  if (live.size === 0) process.on('exit', killAllOnExit);
  live.set(pid, spec);
  let killed = false;
  return {
    pid,
    async kill(options = {}) {
      if (options.leaderExited) {
        // At once, while the group id cannot name anything else yet: its members still hold it.
        signalGroup(pid, 'SIGKILL');
        // A kill before the exit found and killed everything already.
        if (killed || !marker) return;
        for (let round = 0; round < KILL_ROUNDS; round += 1) {
          const { marked } = await scan(spec);
          for (const member of marked) signalProcess(member, 'SIGKILL');
          if (marked.length === 0) break;
        }
        return;
      }
      killed = true;
      signalGroup(pid, 'SIGSTOP');
      for (let round = 0; round < KILL_ROUNDS; round += 1) {
        const found = members(pid, await scan(spec));
        for (const member of found) signalProcess(member, 'SIGKILL');
        if (found.length === 0) break;
      }
      signalGroup(pid, 'SIGKILL');
    },
    untrack() {
      if (live.get(pid) !== spec) return;
      live.delete(pid);
      if (live.size === 0) process.off('exit', killAllOnExit);
    },
  };
}

/** How many trees are tracked (for tests and diagnostics). */
export function trackedTrees(): number {
  return live.size;
}
