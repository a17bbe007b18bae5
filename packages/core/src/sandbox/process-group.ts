import { type ChildProcess, spawn } from 'node:child_process';
import { ByteTail } from '../util/byte-tail.js';
import {
  EXIT_WAIT_AFTER_KILL_MS,
  markedEnvironment,
  newTreeMarker,
  OUTPUT_DRAIN_MS,
  trackTree,
} from '../util/process-tree.js';

/** Why a run stopped before its program exited on its own. */
export type StopReason = 'timeout' | 'aborted' | 'killed';

/** One program to run in a new process group. */
export interface GroupRunSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
}

/** How a run ended. */
export interface GroupRunOutcome {
  /** The program's exit code when it exited on its own. */
  exitCode: number | null;
  /** The signal that ended the program when nobody here sent it. */
  exitSignal: NodeJS.Signals | null;
  /** Set when the group was killed here. */
  stopped: StopReason | null;
  /** Set when the program could not be started. */
  spawnError: Error | null;
  stdout: ByteTail;
  stderr: ByteTail;
  durationMs: number;
}

/** A run in progress. */
export interface GroupRun {
  readonly done: Promise<GroupRunOutcome>;
  /** Kills the whole group now (no-op once the run ended). */
  stop(reason: StopReason): void;
}

/**
 * Runs a program (no shell) as the leader of a new process group, with stdin closed and both
 * output streams kept to their tail. The group and the leader's descendants are SIGKILLed when
 * the timeout passes, when `signal` aborts and on {@link GroupRun.stop}; the group is SIGKILLed
 * as soon as the program itself exits (a background grandchild holding the pipes open cannot
 * keep the run alive). Never rejects.
 */
export function runProcessGroup(spec: GroupRunSpec): GroupRun {
  const started = performance.now();
  const stdout = new ByteTail(spec.maxOutputBytes);
  const stderr = new ByteTail(spec.maxOutputBytes);
  const outcome = (
    fields: Partial<Pick<GroupRunOutcome, 'exitCode' | 'exitSignal' | 'stopped' | 'spawnError'>>,
  ): GroupRunOutcome => ({
    exitCode: null,
    exitSignal: null,
    stopped: null,
    spawnError: null,
    ...fields,
    stdout,
    stderr,
    durationMs: performance.now() - started,
  });
  if (spec.signal?.aborted) {
    return { done: Promise.resolve(outcome({ stopped: 'aborted' })), stop: () => undefined };
  }
  let child: ChildProcess;
  const marker = newTreeMarker();
  try {
    child = spawn(spec.file, spec.args, {
      cwd: spec.cwd,
      env: markedEnvironment(spec.env, marker),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (error) {
    // Synchronous refusals: a NUL in an argument, an argument list that is not strings…
    return {
      done: Promise.resolve(outcome({ spawnError: error as Error })),
      stop: () => undefined,
    };
  }
  const pid = child.pid;
  const tree = pid !== undefined ? trackTree(pid, marker) : undefined;
  let stopped: StopReason | null = null;
  let exited = false;
  let exitCode: number | null = null;
  let exitSignal: NodeJS.Signals | null = null;
  let spawnError: Error | null = null;
  let finished = false;
  let resolveDone!: (value: GroupRunOutcome) => void;
  const done = new Promise<GroupRunOutcome>((resolve) => {
    resolveDone = resolve;
  });
  const timers: NodeJS.Timeout[] = [];
  const later = (ms: number, action: () => void): void => {
    timers.push(setTimeout(action, ms));
  };

  const finish = (): void => {
    if (finished) return;
    finished = true;
    for (const timer of timers) clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
    tree?.untrack();
    child.stdout?.destroy();
    child.stderr?.destroy();
    resolveDone(
      outcome({
        exitCode: stopped ? null : exitCode,
        exitSignal: stopped ? null : exitSignal,
        stopped,
        spawnError,
      }),
    );
  };
  const stop = (reason: StopReason): void => {
    if (finished || exited || pid === undefined) return;
    stopped ??= reason;
    void tree?.kill();
    // A child stuck beyond SIGKILL (uninterruptible I/O) must not hold the run forever.
    later(EXIT_WAIT_AFTER_KILL_MS, finish);
  };
  const onAbort = (): void => stop('aborted');

  let openStreams = 2;
  const streamClosed = (): void => {
    openStreams -= 1;
    if (openStreams === 0 && (exited || spawnError)) finish();
  };
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdout!.on('close', streamClosed);
  child.stderr!.on('close', streamClosed);
  child.stdout!.on('error', () => undefined);
  child.stderr!.on('error', () => undefined);

  child.on('error', (error) => {
    if (pid === undefined || !exited) {
      spawnError = error;
      if (pid === undefined) finish();
    }
  });
  child.on('exit', (code, signal) => {
    exited = true;
    exitCode = code;
    exitSignal = signal;
    // What the program left running goes with it: its group, and whatever left the group
    // (`setsid`, a double fork) but still carries the tree's marker. The last output may take a
    // moment once nothing holds the pipes any more: the grace starts after the kill, so a busy
    // event loop cannot run the timer before it has read what was already written.
    const killed = tree?.kill({ leaderExited: true }) ?? Promise.resolve();
    if (openStreams === 0) finish();
    else
      void killed.then(() => {
        if (!finished) later(OUTPUT_DRAIN_MS, finish);
      });
  });

  spec.signal?.addEventListener('abort', onAbort, { once: true });
  later(spec.timeoutMs, () => stop('timeout'));
  return { done, stop };
}
