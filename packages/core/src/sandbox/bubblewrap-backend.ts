import { KsadkError } from '../errors/ksadk-error.js';
import { bubblewrapArgs, systemMountArgs } from './bubblewrap-args.js';
import { findExecutable } from './find-executable.js';
import {
  createLocalBackendSession,
  type LocalBackendOptions,
  localBackendSettings,
} from './local-process-backend.js';
import type { LocalLauncher } from './local-session.js';
import type { SandboxBackend } from './sandbox-backend.js';

/** Options for {@link createBubblewrapBackend}. */
export interface BubblewrapBackendOptions extends LocalBackendOptions {
  /** The `bwrap` program: a path, or a name looked up on the `PATH` of `env`. @default 'bwrap' */
  bwrapPath?: string;
}

const INSTALL_HINT =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or choose another backend with KSADK_SANDBOX_BACKEND';
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs `true` in a sandbox once, so a host where bubblewrap cannot create namespaces fails at
 * `createSession` with a setup error instead of on every command.
 */
async function probe(
  bwrap: string,
  system: readonly string[],
  env: Record<string, string>,
): Promise<void> {
  const args = bubblewrapArgs(system, { root: undefined, readOnlyPaths: [], network: false }, '/');
  const { runProcessGroup } = await import('./process-group.js');
  const outcome = await runProcessGroup({
    file: bwrap,
    args: [...args, 'true'],
    cwd: '/',
    env,
    timeoutMs: PROBE_TIMEOUT_MS,
    maxOutputBytes: 4096,
  }).done;
  if (outcome.exitCode === 0) return;
  const reason =
    outcome.spawnError?.message ??
    (outcome.stderr.text().trim().split('\n', 1)[0] || `exit ${outcome.exitCode}`);
  throw new KsadkError(
    'setup',
    `bubblewrap cannot create a sandbox on this host (${reason}): it needs unprivileged user namespaces (or a setuid bwrap); enable them or choose another backend with KSADK_SANDBOX_BACKEND`,
    { details: { bwrap } },
  );
}

function bubblewrapLauncher(
  bwrap: string,
  system: readonly string[],
  root: string,
  readOnlyPaths: readonly string[],
  network: boolean,
): LocalLauncher {
  return {
    // bwrap passes its own (already minimal) environment through: `--setenv` would put every
    // value, secrets included, on a command line any host user can read.
    wrap: ({ argv, cwd }) => ({
      file: bwrap,
      args: [...bubblewrapArgs(system, { root, readOnlyPaths, network }, cwd), ...argv],
      cwd: root,
    }),
    classify: (outcome, stderr) => {
      if (outcome.exitCode !== 1 || !stderr.startsWith('bwrap: ')) return undefined;
      const line = stderr.split('\n', 1)[0]!;
      return line.startsWith('bwrap: execvp ')
        ? { type: 'spawn_failed', message: `could not start the program: ${line.slice(14)}` }
        : { type: 'sandbox_error', message: line };
    },
  };
}

/**
 * The `bubblewrap` backend (Linux): each command runs through `bwrap` in new namespaces — no
 * network unless the session sets `network: true`, no capabilities, its own `/proc`, `/dev` and
 * a private `/tmp`; the host is invisible except the system directories (`/usr`, `/bin`,
 * `/lib*`, `/sbin`), a few `/etc` files and Node's directory, all read-only; the session's
 * `readOnlyPaths` read-only; the session root read-write (at its host path). Everything else of
 * `local_process` holds too: argv only, minimal environment, bounded time, the whole tree killed
 * on timeout, abort and `kill()` (the pid namespace dies with `bwrap`).
 *
 * @throws {KsadkError} `setup` when `bwrap` is not found — never a silent unisolated fallback;
 * `createSession` throws `setup` when bubblewrap cannot create namespaces on this host.
 *
 * @example
 * ```ts
 * const backend = createBubblewrapBackend();
 * const session = await backend.createSession({ sessionId: 'run-1' });
 * try {
 *   const result = await session.run({ argv: ['sh', '-c', 'echo hi > out.txt'], timeoutMs: 10_000 });
 *   console.log(result.ok, new TextDecoder().decode(await session.readFile('out.txt')));
 * } finally {
 *   await session.kill();
 * }
 * ```
 */
export function createBubblewrapBackend(options: BubblewrapBackendOptions = {}): SandboxBackend {
  const settings = localBackendSettings(options);
  const requested = options.bwrapPath ?? 'bwrap';
  const bwrap = findExecutable(requested, settings.parentEnv['PATH']);
  if (!bwrap) {
    throw new KsadkError(
      'setup',
      `the bubblewrap backend needs the bwrap program, which was not found (${requested}): ${INSTALL_HINT}`,
      { details: { bwrap: requested } },
    );
  }
  const system = systemMountArgs();
  let probed: Promise<void> | undefined;
  return {
    name: 'bubblewrap',
    isolated: true,
    async createSession(sessionOptions) {
      probed ??= probe(bwrap, system, { PATH: settings.parentEnv['PATH'] ?? '/usr/bin:/bin' });
      await probed.catch((error: unknown) => {
        probed = undefined;
        throw error;
      });
      const { realReadOnlyPaths } = await import('./session-root.js');
      if ((await realReadOnlyPaths(sessionOptions?.readOnlyPaths)).includes('/')) {
        throw new KsadkError('invalid_config', 'readOnlyPaths must not hold / (the whole host)');
      }
      const network = sessionOptions?.network === true;
      return createLocalBackendSession('bubblewrap', settings, sessionOptions, (readOnly, root) =>
        bubblewrapLauncher(bwrap, system, root, readOnly, network),
      );
    },
  };
}
