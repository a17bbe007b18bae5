import { KsadkError } from '../errors/ksadk-error.js';
import { ByteTail } from '../util/byte-tail.js';
import { redactSecrets, registerSecret, secretValuesFromEnv } from '../util/redact.js';
import type { McpStdioServerConfig } from './mcp-config.js';
import {
  type McpClientSetup,
  type McpConnection,
  type McpProcessExit,
  type McpSession,
  type McpToolsetDiagnostics,
  newMcpClient,
} from './mcp-connection.js';
import { createRestartBackoff, type RestartBackoffOptions } from './restart-backoff.js';
import {
  checkStdioSandbox,
  type McpStdioSandboxConfig,
  type McpStdioSandboxOption,
} from './stdio-sandbox-config.js';
import type { ProcessGroupStdioTransport, StdioProcessExit } from './stdio-transport.js';

/** Bytes of stderr kept per server. */
const STDERR_TAIL_BYTES = 64 * 1024;
/** Longest message (one stdout line) a stdio server may send. */
const MAX_STDIO_MESSAGE_BYTES = 16 * 1024 * 1024;
/** After stdin closes, how long a server may take to exit before SIGTERM, then SIGKILL. */
const CLOSE_GRACE_MS = 2_000;
/**
 * How long a failed start waits for the process's exit when the server closed its input first: a
 * server that exits at once breaks the first write before its exit is seen, and the exit says more.
 */
const EXIT_AFTER_BROKEN_PIPE_MS = 1_000;
/** The variables of this process a stdio server gets (its entry's `env` besides). */
const INHERITED = ['PATH', 'HOME'] as const;

/** Options of {@link createStdioConnection} (tests shorten the timings). */
export interface StdioConnectionOptions {
  clientName?: string | undefined;
  setup?: McpClientSetup | undefined;
  maxMessageBytes?: number;
  graceMs?: number;
  backoff?: RestartBackoffOptions;
  /** Isolation when the entry does not name one. @default 'none' */
  sandbox?: McpStdioSandboxOption | undefined;
}

/** The child's whole environment: `PATH` and `HOME` of this process, then the entry's `env`. */
export function stdioServerEnv(
  config: Pick<McpStdioServerConfig, 'env'>,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...config.env };
}

/** The isolation a server gets: its entry's own, else the toolset's default. */
function resolveStdioSandbox(
  own: McpStdioServerConfig['sandbox'],
  fallback: McpStdioSandboxOption | undefined,
): 'none' | McpStdioSandboxConfig {
  if (own !== undefined) return own;
  const checked = checkStdioSandbox(fallback ?? 'none');
  if (typeof checked === 'object' && 'message' in checked)
    throw new KsadkError('invalid_config', `stdioSandbox ${checked.message}`);
  return checked;
}

/** What to run: the server itself, or bubblewrap running it. */
async function launchCommand(
  config: McpStdioServerConfig,
  sandbox: 'none' | McpStdioSandboxConfig,
  env: Readonly<Record<string, string>>,
): Promise<{ command: string; args: readonly string[]; cwd: string | undefined }> {
  if (sandbox === 'none') return { command: config.command, args: config.args, cwd: config.cwd };
  const { bubblewrapCommand } = await import('./stdio-sandbox.js');
  const wrapped = bubblewrapCommand(sandbox, {
    command: config.command,
    args: config.args,
    cwd: config.cwd,
    env,
  });
  // bwrap runs from `/`; the server's working directory is set inside (`--chdir`).
  return { ...wrapped, cwd: '/' };
}

const describeExit = (exit: StdioProcessExit | undefined): string | undefined => {
  if (!exit) return undefined;
  if (exit.reason) return exit.reason;
  if (exit.signal) return `it was ended by ${exit.signal}`;
  return `it exited with code ${exit.code}`;
};

/** A sleep that `wakeAll()` cuts short: starts waiting out the back-off end when the connection closes. */
function wakeableSleep(): { sleep(ms: number): Promise<void>; wakeAll(): void } {
  const waiting = new Set<() => void>();
  return {
    sleep: (ms) =>
      new Promise((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        waiting.add(wake);
      }),
    wakeAll: () => {
      for (const wake of [...waiting]) wake();
    },
  };
}

/** How a server process ended, as diagnostics report it. */
function exitRecord(ended: StdioProcessExit): McpProcessExit {
  return {
    pid: ended.pid,
    code: ended.code,
    signal: ended.signal,
    requested: ended.requested,
    ...(ended.reason ? { reason: ended.reason } : {}),
    at: new Date(),
  };
}

/** The exit of a server that never ran (its spawn failed). */
function spawnFailure(error: unknown): McpProcessExit {
  const reason = (error as { code?: unknown }).code;
  return {
    pid: undefined,
    code: null,
    signal: null,
    requested: false,
    reason: `it could not be started${typeof reason === 'string' ? ` (${reason})` : ''}`,
    at: new Date(),
  };
}

/** Why a start failed, in words the toolset reports: the server's exit, a timeout, a spawn error. */
async function startError(
  error: unknown,
  exit: StdioProcessExit | undefined,
  config: McpStdioServerConfig,
  stderr: ByteTail,
  sandboxed: boolean,
): Promise<Error> {
  const code = (error as { code?: unknown }).code;
  if (exit && !exit.requested) {
    // bubblewrap says why it could not set the sandbox up on its first stderr line.
    const refusal = sandboxed
      ? stderr
          .text()
          .split('\n')
          .find((line) => line.startsWith('bwrap: '))
      : undefined;
    return new Error(
      `it stopped during initialisation (${describeExit(exit)}${refusal ? `; ${refusal.slice(0, 300)}` : ''})`,
      { cause: error },
    );
  }
  // The SDK is loaded already: this start ran its client.
  const { ErrorCode } = await import('@modelcontextprotocol/sdk/types.js');
  if (code === ErrorCode.RequestTimeout) {
    return new Error(`it did not answer initialize within ${config.timeoutMs} ms`, {
      cause: error,
    });
  }
  if (typeof code === 'string') {
    // spawn errors: ENOENT (no such program, or no such cwd), EACCES…
    const reason =
      code === 'ENOENT'
        ? 'no such program, or no such working directory'
        : code === 'EACCES'
          ? 'not allowed to run it'
          : code;
    return new Error(`it could not be started (${config.command}: ${code}, ${reason})`, {
      cause: error,
    });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Sessions with a server run as a child process: started lazily by the first `open()`, one
 * process at a time, restarted (by the next `open()`) with back-off after it stops on its own,
 * stopped with its whole process group by `close()`. Its stderr is kept in a bounded tail for
 * {@link McpConnection.diagnostics}.
 */
export function createStdioConnection(
  config: McpStdioServerConfig,
  options: StdioConnectionOptions = {},
): McpConnection {
  // Values of secret-looking variables (tokens, keys, passwords) are redacted from everything
  // the server returns; other values (paths, modes, flags) stay readable.
  for (const value of secretValuesFromEnv(config.env)) registerSecret(value);
  const sandbox = resolveStdioSandbox(config.sandbox, options.sandbox);
  const stderr = new ByteTail(STDERR_TAIL_BYTES);
  const backoff = createRestartBackoff(options.backoff);
  const running = new Set<ProcessGroupStdioTransport>();
  const sleeper = wakeableSleep();
  let latest: ProcessGroupStdioTransport | undefined;
  let lastExit: McpProcessExit | undefined;
  let starts = 0;
  let crashes = 0;
  /** Bumped by `close()`: a start begun before it is abandoned. */
  let epoch = 0;
  const abandoned = (mine: number): boolean => mine !== epoch;
  const failed = (exit: McpProcessExit): void => {
    lastExit = exit;
    crashes += 1;
    backoff.failed();
  };

  /** Spawns the server (bubblewrapped when configured), its exits counted for the back-off. */
  const spawnServer = async (mine: number, onEnded: (ended: StdioProcessExit) => void) => {
    const { ProcessGroupStdioTransport } = await import('./stdio-transport.js');
    const env = stdioServerEnv(config);
    const launch = await launchCommand(config, sandbox, env);
    // Closed meanwhile: nothing may be started after `close()` stopped everything.
    if (abandoned(mine)) throw new Error('it was closed');
    const transport = new ProcessGroupStdioTransport({
      ...launch,
      env,
      maxMessageBytes: options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES,
      graceMs: options.graceMs ?? CLOSE_GRACE_MS,
      stderr,
      onExit: (ended) => {
        onEnded(ended);
        // Stopped on its own, or stopped here because it misbehaved.
        if (!ended.requested || ended.reason !== undefined) failed(exitRecord(ended));
        else lastExit = exitRecord(ended);
      },
    });
    transport.onclose = () => running.delete(transport);
    running.add(transport);
    latest = transport;
    starts += 1;
    backoff.started();
    return transport;
  };

  const open = async (): Promise<McpSession> => {
    const mine = epoch;
    const wait = backoff.waitMs();
    if (wait > config.timeoutMs) {
      throw new Error(`it keeps stopping; it will be started again in ${Math.ceil(wait / 1000)} s`);
    }
    if (wait > 0) await sleeper.sleep(wait);
    if (abandoned(mine)) throw new Error('it was closed');
    let exit: StdioProcessExit | undefined;
    let exited: (() => void) | undefined;
    const transport = await spawnServer(mine, (ended) => {
      exit = ended;
      exited?.();
    });
    const client = await newMcpClient(options.clientName, options.setup);
    try {
      await client.connect(transport, { timeout: config.timeoutMs });
    } catch (error) {
      if (exit === undefined && transport.leftFirst) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, EXIT_AFTER_BROKEN_PIPE_MS);
          exited = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      const before = exit;
      transport.kill('it did not complete initialisation');
      await client.close().catch(() => undefined);
      await transport.close();
      // It never ran (the spawn failed): a failure for the back-off all the same.
      if (exit === undefined) failed(spawnFailure(error));
      throw await startError(error, before, config, stderr, sandbox !== 'none');
    }
    if (abandoned(mine)) {
      await transport.close();
      throw new Error('it was closed');
    }
    return {
      client,
      alive: () => transport.alive,
      endedBecause: () => describeExit(exit),
      close: () => client.close(),
    };
  };

  return {
    kind: 'stdio',
    open,
    diagnostics(): McpToolsetDiagnostics {
      const next = backoff.notBefore();
      return {
        transport: 'stdio',
        pid: latest?.pid,
        starts,
        crashes,
        lastExit,
        restartNotBefore: next === undefined ? undefined : new Date(next),
        stderrTail: redactSecrets(stderr.text()),
        stderrBytes: stderr.total,
      };
    },
    async close() {
      epoch += 1;
      sleeper.wakeAll();
      await Promise.all([...running].map((transport) => transport.close()));
    },
  };
}
