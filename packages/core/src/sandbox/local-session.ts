import { KsadkError } from '../errors/ksadk-error.js';
import { secretValuesFromEnv } from '../util/redact.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { buildChildEnv } from './child-env.js';
import { clampTimeout, commandResult, failedCommand, refusedCommand } from './command-result.js';
import type { SandboxErrorType } from './error-types.js';
import { clampOutputBytes } from './output-limit.js';
import { type GroupRun, type GroupRunOutcome, runProcessGroup } from './process-group.js';
import { listRootFiles, readRootFile, resolveRootCwd, writeRootFile } from './root-files.js';
import type { SandboxCommand, SandboxCommandResult, SandboxSession } from './sandbox-backend.js';
import { releaseSessionRoot, type SessionRoot } from './session-root.js';

/** A checked command, ready to start on the host. */
export interface LocalLaunch {
  argv: readonly string[];
  /** The working directory's real host path. */
  cwd: string;
  env: Record<string, string>;
}

/** How a local backend starts commands: as they are, or wrapped (bubblewrap). */
export interface LocalLauncher {
  /** The program the host starts for a command. */
  wrap(launch: LocalLaunch): { file: string; args: readonly string[]; cwd: string };
  /** A failure the wrapper reported through its own exit (e.g. `bwrap: execvp …`), if any. */
  classify?(
    outcome: GroupRunOutcome,
    stderr: string,
  ): { type: SandboxErrorType; message: string } | undefined;
}

/** What a local session is made of. */
export interface LocalSessionParams {
  backend: 'local_process' | 'bubblewrap';
  sessionId: string;
  root: SessionRoot;
  parentEnv: NodeJS.ProcessEnv;
  passEnv: readonly string[];
  sessionEnv: Readonly<Record<string, string>>;
  maxTimeoutMs: number;
  launcher: LocalLauncher;
}

function stoppedMessage(outcome: GroupRunOutcome, timeoutMs: number): [string, string] | undefined {
  switch (outcome.stopped) {
    case 'timeout':
      return [
        'tool_timeout',
        `the command timed out after ${timeoutMs} ms; its processes were killed`,
      ];
    case 'aborted':
      return ['tool_aborted', 'the command was aborted; its processes were killed'];
    case 'killed':
      return ['session_killed', 'the sandbox session was killed while the command ran'];
    default:
      return undefined;
  }
}

function toResult(
  outcome: GroupRunOutcome,
  launcher: LocalLauncher,
  program: string,
  timeoutMs: number,
  secrets: readonly string[],
): SandboxCommandResult {
  const stdout = outcome.stdout.text();
  const stderr = outcome.stderr.text();
  const base = {
    stdout,
    stderr,
    duration_ms: outcome.durationMs,
    output_truncated: outcome.stdout.truncated || outcome.stderr.truncated,
  };
  const stopped = stoppedMessage(outcome, timeoutMs);
  if (stopped) {
    return commandResult(
      {
        ...base,
        exit_code: null,
        timed_out: outcome.stopped === 'timeout',
        error_type: stopped[0],
        error_message: stopped[1],
      },
      secrets,
    );
  }
  if (outcome.spawnError) {
    const message = `could not start ${JSON.stringify(program.slice(0, 200))}: ${modelSafeErrorMessage(outcome.spawnError)}`;
    return commandResult(
      { ...base, exit_code: null, error_type: 'spawn_failed', error_message: message },
      secrets,
    );
  }
  const wrapperFailure = launcher.classify?.(outcome, stderr);
  if (wrapperFailure) {
    return commandResult(
      {
        ...base,
        exit_code: null,
        error_type: wrapperFailure.type,
        error_message: wrapperFailure.message,
      },
      secrets,
    );
  }
  if (outcome.exitSignal) {
    return commandResult(
      {
        ...base,
        exit_code: null,
        error_type: 'killed_by_signal',
        error_message: `the command was ended by ${outcome.exitSignal}`,
      },
      secrets,
    );
  }
  return commandResult({ ...base, exit_code: outcome.exitCode }, secrets);
}

function closedError(): KsadkError {
  return new KsadkError('unsupported', 'the sandbox session was killed', {
    details: { reason: 'session_closed' },
  });
}

/**
 * A session of a local backend: files under a host directory, commands started on the host
 * (directly or through a wrapper) with a minimal environment, a bounded time and their whole
 * process group killed when they end, time out, abort or the session is killed.
 */
export function createLocalSession(params: LocalSessionParams): SandboxSession {
  const root = params.root.path;
  const running = new Set<GroupRun>();
  let closed = false;
  let killing: Promise<void> | undefined;

  async function run(command: SandboxCommand): Promise<SandboxCommandResult> {
    const started = performance.now();
    const refused = refusedCommand(command, closed, started);
    if (refused) return refused;
    const env = buildChildEnv({
      parent: params.parentEnv,
      passEnv: params.passEnv,
      home: root,
      session: params.sessionEnv,
      command: command.env,
    });
    const secrets = secretValuesFromEnv({ ...params.sessionEnv, ...command.env });
    const cwd = await resolveRootCwd(root, command.cwd ?? '.');
    if (!cwd.ok) return failedCommand(cwd.error_type, cwd.error_message, started, secrets);
    if (closed) return failedCommand('session_closed', 'the sandbox session was killed', started);
    const timeoutMs = clampTimeout(command.timeoutMs, params.maxTimeoutMs);
    const program = params.launcher.wrap({ argv: command.argv, cwd: cwd.path, env });
    const handle = runProcessGroup({
      ...program,
      env,
      timeoutMs,
      maxOutputBytes: clampOutputBytes(command.maxOutputBytes),
      signal: command.signal,
    });
    running.add(handle);
    try {
      const outcome = await handle.done;
      return toResult(outcome, params.launcher, command.argv[0]!, timeoutMs, secrets);
    } finally {
      running.delete(handle);
    }
  }

  async function kill(): Promise<void> {
    closed = true;
    killing ??= (async () => {
      const pending = [...running];
      for (const handle of pending) handle.stop('killed');
      await Promise.all(pending.map((handle) => handle.done));
      await releaseSessionRoot(params.root);
    })();
    return killing;
  }

  const ensureOpen = (): void => {
    if (closed) throw closedError();
  };
  return {
    id: `${params.backend}:${params.sessionId}`,
    backend: params.backend,
    root,
    async writeFile(path, data) {
      ensureOpen();
      await writeRootFile(root, path, data);
    },
    async readFile(path, options) {
      ensureOpen();
      return readRootFile(root, path, options);
    },
    async listFiles(dir, options) {
      ensureOpen();
      return listRootFiles(root, dir, options);
    },
    run,
    kill,
  };
}
