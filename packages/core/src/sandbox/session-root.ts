import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import { SANDBOX_ROOT_PREFIX } from '../util/private-dirs.js';

/** A local session's root directory. */
export interface SessionRoot {
  /** Its real path. */
  readonly path: string;
  /** Whether the session created it privately (and removes it on `kill`). */
  readonly owned: boolean;
}

/** Private roots not yet released: removed when the host process exits without killing them. */
const ownedRoots = new Set<string>();
let exitHookInstalled = false;

function trackOwnedRoot(root: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const owned of ownedRoots) {
        try {
          rmSync(owned, { recursive: true, force: true });
        } catch {
          // Best effort: the process is exiting.
        }
      }
    });
  }
  ownedRoots.add(root);
}

/**
 * The root of a local session: `hostRoot` (absolute; created with mode 0700 when missing, kept
 * on `kill`) or a new private temporary directory (removed on `kill`).
 */
export async function prepareSessionRoot(hostRoot: string | undefined): Promise<SessionRoot> {
  if (hostRoot === undefined) {
    const created = await realpath(await mkdtemp(path.join(tmpdir(), SANDBOX_ROOT_PREFIX)));
    trackOwnedRoot(created);
    return { path: created, owned: true };
  }
  if (typeof hostRoot !== 'string' || !path.isAbsolute(hostRoot) || hostRoot.includes('\0')) {
    throw new KsadkError('invalid_config', 'hostRoot must be an absolute directory path');
  }
  await mkdir(hostRoot, { recursive: true, mode: 0o700 });
  const real = await realpath(hostRoot);
  if (!(await stat(real)).isDirectory())
    throw new KsadkError('invalid_config', 'hostRoot must be a directory');
  return { path: real, owned: false };
}

/**
 * Removes a root the session owns (best effort: a failure leaves the directory behind). A root
 * never released is removed when the host process exits.
 */
export async function releaseSessionRoot(root: SessionRoot): Promise<void> {
  if (!root.owned) return;
  // Tracked until it is gone: a process that exits mid-removal still removes it.
  await rm(root.path, { recursive: true, force: true, maxRetries: 2 }).then(
    () => ownedRoots.delete(root.path),
    () => undefined,
  );
}

/**
 * Checks host paths a session may read (`readOnlyPaths`): absolute and existing. Returns their
 * real paths.
 */
export async function realReadOnlyPaths(paths: readonly string[] | undefined): Promise<string[]> {
  const out: string[] = [];
  for (const entry of paths ?? []) {
    if (typeof entry !== 'string' || !path.isAbsolute(entry) || entry.includes('\0')) {
      throw new KsadkError('invalid_config', 'readOnlyPaths must hold absolute host paths');
    }
    try {
      out.push(await realpath(entry));
    } catch (error) {
      throw new KsadkError('invalid_config', `a read-only path does not exist: ${entry}`, {
        cause: error,
      });
    }
  }
  return out;
}
