import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type {
  E2BCommandResult,
  E2BCreateOptions,
  E2BEntry,
  E2BProvider,
  E2BRunOptions,
  E2BSandbox,
} from '../sandbox/e2b-provider.js';
import { runProcessGroup } from '../sandbox/process-group.js';

/** Knobs of {@link createFakeE2BProvider}. */
export interface FakeE2BProviderOptions {
  /** The readiness command (`true`) fails this many times per sandbox first. @default 0 */
  notReadyTimes?: number;
  /** The name of the readiness error. @default 'SandboxNotFoundError' (one the backend retries) */
  notReadyErrorName?: string;
  /** `create` throws this. */
  createError?: Error;
  /** `commands.run` throws the error returned for a command line instead of running it. */
  throwOn?: (cmd: string) => Error | undefined;
  /** `commands.run` never settles for these command lines (until aborted): a hung SDK call. */
  hangOn?: (cmd: string) => boolean;
}

/** One `create` call. */
export interface FakeE2BCreate {
  template: string;
  options: E2BCreateOptions;
  sandboxId: string;
}

/** One `commands.run` call (the signal left out). */
export interface FakeE2BRun {
  sandboxId: string;
  cmd: string;
  options: Omit<E2BRunOptions, 'signal'>;
}

/** One fake sandbox. */
export interface FakeE2BSandboxRecord {
  readonly sandboxId: string;
  /** The host directory standing for the sandbox's `/`. */
  readonly hostDir: string;
  killed: boolean;
  killCalls: number;
}

/** A fake E2B provider and what it saw. */
export interface FakeE2BProvider extends E2BProvider {
  readonly creates: FakeE2BCreate[];
  readonly runs: FakeE2BRun[];
  readonly sandboxes: FakeE2BSandboxRecord[];
  /** Sandboxes created and not killed. */
  live(): FakeE2BSandboxRecord[];
  /** Removes every sandbox's host directory. */
  cleanup(): Promise<void>;
}

/** Like the SDK's `CommandExitError`: thrown for a non-zero exit, carrying the result. */
class FakeCommandExitError extends Error implements E2BCommandResult {
  override readonly name = 'CommandExitError';
  constructor(private readonly result: E2BCommandResult) {
    super(result.error ?? `exit status ${result.exitCode}`);
  }
  get exitCode(): number {
    return this.result.exitCode;
  }
  get stdout(): string {
    return this.result.stdout;
  }
  get stderr(): string {
    return this.result.stderr;
  }
}

function named(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    signal?.addEventListener('abort', () => reject(named('AbortError', 'aborted')), {
      once: true,
    });
  });
}

/**
 * A fake with the surface of the `e2b` SDK that really runs commands: each sandbox is a host
 * temporary directory standing for its `/`; `commands.run` runs `bash -c <cmd>` there (cwd
 * mapped, the sandbox's and the command's variables plus `PATH`, the timeout enforced), throwing
 * a `CommandExitError` for a non-zero exit and a `TimeoutError` at the timeout, like the SDK.
 * It records creates, runs and kills; knobs make readiness fail, calls throw or hang. Not a
 * sandbox: commands run on the host. Call `cleanup()` when done.
 *
 * @example
 * ```ts
 * const provider = createFakeE2BProvider({ notReadyTimes: 2 });
 * const backend = createE2BBackend({ provider, templateId: 'test', startupRetryDelayMs: 1 });
 * const session = await backend.createSession({ sessionId: 's1' });
 * await session.kill();
 * console.log(provider.live().length); // 0
 * await provider.cleanup();
 * ```
 */
export function createFakeE2BProvider(options: FakeE2BProviderOptions = {}): FakeE2BProvider {
  const creates: FakeE2BCreate[] = [];
  const runs: FakeE2BRun[] = [];
  const sandboxes: FakeE2BSandboxRecord[] = [];

  async function create(template: string, createOptions: E2BCreateOptions): Promise<E2BSandbox> {
    if (options.createError) throw options.createError;
    const hostDir = await mkdtemp(path.join(tmpdir(), 'ksadk-fake-e2b-'));
    const record: FakeE2BSandboxRecord = {
      sandboxId: `fake-${sandboxes.length + 1}`,
      hostDir,
      killed: false,
      killCalls: 0,
    };
    sandboxes.push(record);
    creates.push({ template, options: { ...createOptions }, sandboxId: record.sandboxId });
    await mkdir(path.join(hostDir, 'home/user'), { recursive: true });
    let notReady = options.notReadyTimes ?? 0;
    const map = (sandboxPath: string): string =>
      path.join(hostDir, path.posix.normalize(`/${sandboxPath}`));
    const alive = (): void => {
      if (record.killed) throw named('SandboxNotFoundError', `sandbox ${record.sandboxId} is gone`);
    };

    async function run(cmd: string, runOptions: E2BRunOptions): Promise<E2BCommandResult> {
      const { signal, ...seen } = runOptions;
      runs.push({ sandboxId: record.sandboxId, cmd, options: seen });
      alive();
      if (cmd === 'true' && notReady > 0) {
        notReady -= 1;
        throw named(options.notReadyErrorName ?? 'SandboxNotFoundError', 'sandbox not ready');
      }
      const thrown = options.throwOn?.(cmd);
      if (thrown) throw thrown;
      if (options.hangOn?.(cmd)) return waitForAbort(signal);
      const outcome = await runProcessGroup({
        file: 'bash',
        args: ['-c', cmd],
        cwd: map(runOptions.cwd ?? '/home/user'),
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: map('/home/user'),
          ...createOptions.envs,
          ...runOptions.envs,
        },
        timeoutMs: runOptions.timeoutMs,
        maxOutputBytes: 64 * 1024 * 1024,
        signal,
      }).done;
      if (outcome.stopped === 'timeout') throw named('TimeoutError', '[deadline_exceeded]');
      if (outcome.stopped) throw named('AbortError', 'aborted');
      if (outcome.spawnError) throw outcome.spawnError;
      const result = {
        exitCode: outcome.exitCode ?? 137,
        stdout: outcome.stdout.text(),
        stderr: outcome.stderr.text(),
      };
      if (result.exitCode !== 0) throw new FakeCommandExitError(result);
      return result;
    }

    return {
      sandboxId: record.sandboxId,
      commands: { run },
      files: {
        async write(file, data) {
          alive();
          await mkdir(path.dirname(map(file)), { recursive: true });
          await writeFile(map(file), typeof data === 'string' ? data : new Uint8Array(data));
        },
        async read(file) {
          alive();
          return new Uint8Array(
            await readFile(map(file)).catch(() => {
              throw named('FileNotFoundError', `file not found: ${file}`);
            }),
          );
        },
        async list(dir): Promise<E2BEntry[]> {
          alive();
          const entries = await readdir(map(dir), { withFileTypes: true });
          return entries.map((entry) => ({
            name: entry.name,
            path: path.posix.join(dir, entry.name),
            type: entry.isDirectory() ? 'dir' : entry.isSymbolicLink() ? 'symlink' : 'file',
          }));
        },
        async makeDir(dir) {
          alive();
          await mkdir(map(dir), { recursive: true });
        },
      },
      async kill() {
        record.killCalls += 1;
        record.killed = true;
      },
    };
  }

  return {
    creates,
    runs,
    sandboxes,
    create,
    live: () => sandboxes.filter((sandbox) => !sandbox.killed),
    async cleanup() {
      await Promise.all(
        sandboxes.map((sandbox) => rm(sandbox.hostDir, { recursive: true, force: true })),
      );
    },
  };
}
