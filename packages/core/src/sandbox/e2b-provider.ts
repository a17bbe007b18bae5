import { KsadkError } from '../errors/ksadk-error.js';

/** What a finished E2B command returned (the SDK's `CommandResult`). */
export interface E2BCommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  error?: string;
}

/** Options for {@link E2BProvider.create} (a subset of the SDK's `SandboxOpts`). */
export interface E2BCreateOptions {
  /** Variables of every command of the sandbox. */
  envs: Record<string, string>;
  /** The sandbox's lifetime. */
  timeoutMs: number;
  metadata: Record<string, string>;
  allowInternetAccess: boolean;
  /** @default the SDK reads `E2B_API_KEY` */
  apiKey?: string;
}

/** Options for {@link E2BSandbox.commands}`.run` (a subset of the SDK's `CommandStartOpts`). */
export interface E2BRunOptions {
  /** Variables of this command, passed natively (never interpolated into the command line). */
  envs: Record<string, string>;
  cwd?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** One directory entry (the SDK's `EntryInfo`, the fields used here). */
export interface E2BEntry {
  name: string;
  path: string;
  /** `file`, `dir` or `symlink`. */
  type?: string;
}

/**
 * The part of an E2B sandbox (the `e2b` SDK's `Sandbox`) the backend uses. `commands.run` throws
 * for a non-zero exit, like the SDK's `CommandExitError`: an error carrying numeric `exitCode`
 * and string `stdout`/`stderr`; SDK timeouts are errors named `TimeoutError`.
 */
export interface E2BSandbox {
  readonly sandboxId: string;
  readonly commands: {
    run(cmd: string, options: E2BRunOptions): Promise<E2BCommandResult>;
  };
  readonly files: {
    write(path: string, data: string | ArrayBuffer): Promise<unknown>;
    read(path: string, options: { format: 'bytes' }): Promise<Uint8Array>;
    list(path: string): Promise<E2BEntry[]>;
    makeDir(path: string): Promise<unknown>;
  };
  kill(): Promise<unknown>;
}

/** Creates E2B sandboxes: the `e2b` SDK by default, a fake in tests. */
export interface E2BProvider {
  create(template: string, options: E2BCreateOptions): Promise<E2BSandbox>;
}

type E2BModule = { Sandbox: typeof import('e2b').Sandbox };

let sdk: Promise<E2BModule> | undefined;

async function loadSdk(): Promise<E2BModule> {
  sdk ??= import('e2b').then((module) => ({ Sandbox: module.Sandbox }));
  try {
    return await sdk;
  } catch (error) {
    sdk = undefined;
    throw new KsadkError(
      'setup',
      "the e2b sandbox backend needs the E2B SDK: install the optional peer 'e2b' (npm i e2b@^2)",
      { cause: error },
    );
  }
}

/**
 * The provider backed by the `e2b` SDK (an optional peer dependency, loaded on first use; a
 * missing package is a `KsadkError('setup')`). `E2B_API_KEY` (and `E2B_DOMAIN`) are read by
 * the SDK when no `apiKey` is given.
 */
export function createE2BSdkProvider(): E2BProvider {
  return {
    async create(template, options) {
      const { Sandbox } = await loadSdk();
      const sandbox = await Sandbox.create(template, options);
      return {
        sandboxId: sandbox.sandboxId,
        commands: {
          run: (cmd, runOptions) => sandbox.commands.run(cmd, { ...runOptions, background: false }),
        },
        files: {
          write: (path, data) => sandbox.files.write(path, data),
          read: (path) => sandbox.files.read(path, { format: 'bytes' }),
          list: (path) => sandbox.files.list(path),
          makeDir: (path) => sandbox.files.makeDir(path),
        },
        kill: () => sandbox.kill(),
      };
    },
  };
}
