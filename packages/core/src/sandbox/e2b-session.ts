import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import { ByteTail } from '../util/byte-tail.js';
import { secretValuesFromEnv } from '../util/redact.js';
import { echoValue, modelSafeErrorMessage } from '../util/sanitize-message.js';
import { clampTimeout, commandResult, failedCommand, refusedCommand } from './command-result.js';
import type { E2BCommandResult, E2BSandbox } from './e2b-provider.js';
import { clampOutputBytes } from './output-limit.js';
import { quoteShellCommand } from './posix-quote.js';
import { DEFAULT_MAX_LIST_ENTRIES, DEFAULT_MAX_READ_BYTES } from './root-files.js';
import type { SandboxCommand, SandboxCommandResult, SandboxSession } from './sandbox-backend.js';
import { normalizeSandboxPath, sandboxPathError } from './sandbox-paths.js';

/**
 * How long past its time limit an SDK call may take before the command counts as timed out (a
 * hung connection): as long as the limit itself, between 1 and 10 seconds.
 */
const sdkGraceMs = (timeoutMs: number): number => Math.min(10_000, Math.max(1_000, timeoutMs));

/** What an E2B session is made of. */
export interface E2BSessionParams {
  sandbox: E2BSandbox;
  sessionId: string;
  /** The root inside the sandbox (absolute). */
  root: string;
  sessionEnv: Readonly<Record<string, string>>;
  /** Values redacted from every text field besides the registered secrets (the API key…). */
  secrets: readonly string[];
  maxTimeoutMs: number;
}

/** Whether an error is the SDK's `CommandExitError` (or shaped like it). */
function isCommandExit(error: unknown): error is E2BCommandResult {
  if (typeof error !== 'object' || error === null) return false;
  const { exitCode, stdout, stderr } = error as Partial<E2BCommandResult>;
  return typeof exitCode === 'number' && typeof stdout === 'string' && typeof stderr === 'string';
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /timeout/i.test(name);
}

function tail(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const kept = new ByteTail(maxBytes);
  kept.push(Buffer.from(text, 'utf8'));
  return { text: kept.text(), truncated: kept.truncated };
}

type Settled =
  | { kind: 'result'; value: E2BCommandResult }
  | { kind: 'error'; error: unknown }
  | { kind: 'deadline' }
  | { kind: 'stopped' };

/** Waits for an SDK call, but no longer than `deadlineMs` nor past `signal`. */
function settle(
  call: Promise<E2BCommandResult>,
  deadlineMs: number,
  signal: AbortSignal,
): Promise<Settled> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'deadline' }), deadlineMs);
    const onAbort = (): void => resolve({ kind: 'stopped' });
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (value: Settled): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    call.then(
      (value) => done({ kind: 'result', value }),
      (error: unknown) => done({ kind: 'error', error }),
    );
  });
}

/** What {@link commandOutcome} needs besides the settled call. */
interface OutcomeFacts {
  readonly killed: boolean;
  readonly aborted: boolean;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly started: number;
  readonly secrets: readonly string[];
}

/** The result of a settled command: its exit, a kill, an abort, a timeout or a sandbox error. */
function commandOutcome(settled: Settled, facts: OutcomeFacts): SandboxCommandResult {
  const { timeoutMs, maxBytes, started, secrets } = facts;
  const duration_ms = performance.now() - started;
  const output = (value: E2BCommandResult) => {
    const stdout = tail(value.stdout, maxBytes);
    const stderr = tail(value.stderr, maxBytes);
    return {
      stdout: stdout.text,
      stderr: stderr.text,
      output_truncated: stdout.truncated || stderr.truncated,
    };
  };
  if (settled.kind === 'result') {
    return commandResult(
      { exit_code: settled.value.exitCode, ...output(settled.value), duration_ms },
      secrets,
    );
  }
  if (facts.killed)
    return failedCommand('session_killed', 'the sandbox session was killed', started);
  if (settled.kind === 'stopped' || facts.aborted) {
    return failedCommand('tool_aborted', 'the command was aborted', started, secrets);
  }
  if (settled.kind === 'error' && isCommandExit(settled.error)) {
    return commandResult(
      { exit_code: settled.error.exitCode, ...output(settled.error), duration_ms },
      secrets,
    );
  }
  if (settled.kind === 'deadline' || isTimeout(settled.error)) {
    return commandResult(
      {
        exit_code: null,
        duration_ms,
        timed_out: true,
        error_type: 'tool_timeout',
        error_message: `the command timed out after ${timeoutMs} ms`,
      },
      secrets,
    );
  }
  const name = (settled.error as Error | null)?.name ?? 'Error';
  return failedCommand(
    'sandbox_error',
    `${name}: ${modelSafeErrorMessage(settled.error)}`,
    started,
    secrets,
  );
}

/** The files under `start`, breadth first, at most `maxEntries`, sorted; names from the sandbox are one plain segment or skipped. */
async function listSandboxFiles(
  list: (relative: string) => Promise<readonly { name: string; type?: string | undefined }[]>,
  start: string,
  maxEntries: number,
): Promise<string[]> {
  const files: string[] = [];
  const pending = [start];
  while (pending.length > 0 && files.length < maxEntries) {
    const relative = pending.shift()!;
    for (const entry of await list(relative)) {
      if (['', '.', '..'].includes(entry.name) || entry.name.includes('/')) continue;
      const child = relative === '.' ? entry.name : `${relative}/${entry.name}`;
      if (entry.type === 'dir') pending.push(child);
      else if (entry.type === 'file' && files.length < maxEntries) files.push(child);
    }
  }
  return files.sort();
}

/** A file operation's failure in the sandbox, as a `KsadkError` naming the path as the model gave it. */
const fileError = (action: string, shown: string, error: unknown): KsadkError =>
  KsadkError.isInstance(error)
    ? error
    : new KsadkError(
        'internal',
        `could not ${action} ${echoValue(shown)} in the E2B sandbox: ${modelSafeErrorMessage(error)}`,
        { cause: error, details: { reason: (error as Error | null)?.name ?? 'error' } },
      );

/**
 * A session over one E2B sandbox: files under `root` inside it, commands run by the SDK with
 * the argv quoted for the shell and variables passed natively; every text field redacted.
 */
export function createE2BSession(params: E2BSessionParams): SandboxSession {
  const { sandbox, root } = params;
  const running = new Set<AbortController>();
  let closed = false;
  let killing: Promise<void> | undefined;
  const inRoot = (relative: string): string =>
    relative === '.' ? root : path.posix.join(root, relative);
  const filePath = (input: unknown): { absolute: string; shown: string } => {
    const relative = normalizeSandboxPath(input);
    if (relative === '.') throw sandboxPathError('invalid_path', 'a file path is needed', input);
    return { absolute: inRoot(relative), shown: relative };
  };
  const ensureOpen = (): void => {
    if (closed) {
      throw new KsadkError('unsupported', 'the sandbox session was killed', {
        details: { reason: 'session_closed' },
      });
    }
  };

  async function run(command: SandboxCommand): Promise<SandboxCommandResult> {
    const started = performance.now();
    const refused = refusedCommand(command, closed, started);
    if (refused) return refused;
    const envs = { ...params.sessionEnv, ...command.env };
    const secrets = [...params.secrets, ...secretValuesFromEnv(envs)];
    let cwd: string;
    try {
      cwd = inRoot(normalizeSandboxPath(command.cwd ?? '.'));
    } catch (error) {
      return failedCommand('path_outside_sandbox', (error as Error).message, started, secrets);
    }
    const timeoutMs = clampTimeout(command.timeoutMs, params.maxTimeoutMs);
    const maxBytes = clampOutputBytes(command.maxOutputBytes);
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    command.signal?.addEventListener('abort', onAbort, { once: true });
    running.add(controller);
    let settled: Settled;
    try {
      const call = sandbox.commands.run(quoteShellCommand(command.argv), {
        envs,
        cwd,
        timeoutMs,
        signal: controller.signal,
      });
      settled = await settle(call, timeoutMs + sdkGraceMs(timeoutMs), controller.signal);
    } catch (error) {
      settled = { kind: 'error', error };
    } finally {
      command.signal?.removeEventListener('abort', onAbort);
      running.delete(controller);
    }
    return commandOutcome(settled, {
      killed: closed,
      aborted: command.signal?.aborted === true,
      timeoutMs,
      maxBytes,
      started,
      secrets,
    });
  }

  return {
    id: `e2b:${params.sessionId}`,
    backend: 'e2b',
    root,
    async writeFile(input, data) {
      ensureOpen();
      const { absolute, shown } = filePath(input);
      const body = typeof data === 'string' ? data : new Uint8Array(data).buffer;
      await sandbox.files.write(absolute, body).catch((error: unknown) => {
        throw fileError('write', shown, error);
      });
    },
    async readFile(input, options) {
      ensureOpen();
      const { absolute, shown } = filePath(input);
      const maxBytes = options?.maxBytes ?? DEFAULT_MAX_READ_BYTES;
      const bytes = await sandbox.files
        .read(absolute, { format: 'bytes' })
        .catch((error: unknown) => {
          throw fileError('read', shown, error);
        });
      if (bytes.length > maxBytes) {
        throw new KsadkError(
          'unsupported',
          `${echoValue(shown)} is larger than ${maxBytes} bytes`,
          {
            details: { reason: 'file_too_large', path: echoValue(shown) },
          },
        );
      }
      return bytes;
    },
    async listFiles(dir, options) {
      ensureOpen();
      return listSandboxFiles(
        (relative) =>
          sandbox.files.list(inRoot(relative)).catch((error: unknown) => {
            throw fileError('list', relative, error);
          }),
        normalizeSandboxPath(dir),
        options?.maxEntries ?? DEFAULT_MAX_LIST_ENTRIES,
      );
    },
    run,
    kill() {
      closed = true;
      killing ??= (async () => {
        for (const controller of running) controller.abort();
        await sandbox.kill().catch(() => undefined);
      })();
      return killing;
    },
  };
}
