import { KsadkError } from '../errors/ksadk-error.js';
import { assertValidEnv } from './child-env.js';
import { clampMaxTimeout } from './command-result.js';
import type { LocalLauncher } from './local-session.js';
import type { SandboxBackend, SandboxSession, SandboxSessionOptions } from './sandbox-backend.js';

/** Options shared by the local backends (`local_process`, `bubblewrap`). */
export interface LocalBackendOptions {
  /**
   * Names of host variables copied into every command's environment (when set). Nothing else
   * of the host environment is passed besides `PATH`, `LANG`, `LC_ALL` and `TZ`.
   * @default []
   */
  passEnv?: readonly string[];
  /** The longest time limit a command may have. @default 900_000 (15 minutes) */
  maxTimeoutMs?: number;
  /** The host environment `PATH`, the locale and `passEnv` are read from. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Options for {@link createLocalProcessBackend}. */
export interface LocalProcessBackendOptions extends LocalBackendOptions {}

/** Checks the options of a local backend; returns the parts sessions use. */
export function localBackendSettings(options: LocalBackendOptions): {
  parentEnv: NodeJS.ProcessEnv;
  passEnv: readonly string[];
  maxTimeoutMs: number;
} {
  const passEnv = options.passEnv ?? [];
  if (!Array.isArray(passEnv) || passEnv.some((name) => typeof name !== 'string')) {
    throw new KsadkError('invalid_config', 'passEnv must be a list of variable names');
  }
  return {
    parentEnv: options.env ?? process.env,
    passEnv: [...passEnv],
    maxTimeoutMs: clampMaxTimeout(options.maxTimeoutMs),
  };
}

/** Creates a session of a local backend (shared by `local_process` and `bubblewrap`). */
export async function createLocalBackendSession(
  backend: 'local_process' | 'bubblewrap',
  settings: ReturnType<typeof localBackendSettings>,
  options: SandboxSessionOptions,
  launcher: (readOnlyPaths: readonly string[], root: string) => LocalLauncher,
): Promise<SandboxSession> {
  if (typeof options?.sessionId !== 'string' || options.sessionId === '') {
    throw new KsadkError('invalid_config', 'createSession needs a sessionId');
  }
  assertValidEnv(options.env, 'the session env');
  // Sessions are loaded with the first one: a catalogue that never runs a command never loads them.
  const [{ createLocalSession }, { prepareSessionRoot, realReadOnlyPaths }] = await Promise.all([
    import('./local-session.js'),
    import('./session-root.js'),
  ]);
  const readOnly = await realReadOnlyPaths(options.readOnlyPaths);
  const root = await prepareSessionRoot(options.hostRoot);
  return createLocalSession({
    backend,
    sessionId: options.sessionId,
    root,
    ...settings,
    sessionEnv: { ...options.env },
    launcher: launcher(readOnly, root.path),
  });
}

/** `local_process` runs the argv as given, in the session's directory. */
const directLauncher: LocalLauncher = {
  wrap: ({ argv, cwd }) => ({ file: argv[0]!, args: argv.slice(1), cwd }),
};

/**
 * The `local_process` backend: commands run as host processes, **not isolated** — they can
 * read and write anything the host user can and use the network. For trusted local development
 * only; use `bubblewrap` or `e2b` for model-chosen code.
 *
 * What it does guarantee: argv only (no shell unless the program is one); a minimal, explicit
 * environment (`PATH`, `HOME` = the session root, `LANG`/`LC_ALL`/`TZ`, `passEnv`, then the
 * session's and the command's variables — never the host's secrets); a bounded time limit; the
 * whole process group SIGKILLed on timeout, abort, `kill()`, and when the program exits
 * (background processes do not outlive their command); output kept to its tail; file paths
 * and the working directory confined to the session root; registered secrets redacted.
 *
 * @example
 * ```ts
 * const backend = createLocalProcessBackend({ maxTimeoutMs: 60_000 });
 * const session = await backend.createSession({ sessionId: 'dev-1' });
 * try {
 *   await session.writeFile('hello.txt', 'hi');
 *   const result = await session.run({ argv: ['cat', 'hello.txt'], timeoutMs: 5_000 });
 *   console.log(result.ok, result.stdout); // true "hi"
 * } finally {
 *   await session.kill();
 * }
 * ```
 */
export function createLocalProcessBackend(
  options: LocalProcessBackendOptions = {},
): SandboxBackend {
  const settings = localBackendSettings(options);
  return {
    name: 'local_process',
    isolated: false,
    createSession: (sessionOptions) =>
      createLocalBackendSession('local_process', settings, sessionOptions, () => directLauncher),
  };
}
