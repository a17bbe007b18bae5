import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { workspaceFailure } from './failure.js';

/**
 * A directory held open while a tool writes into it, so a concurrent swap of its path (or of an
 * ancestor) for a symlink cannot move the write elsewhere.
 *
 * On Linux the directory is opened (`O_DIRECTORY | O_NOFOLLOW`) and every entry is addressed
 * through `/proc/self/fd/<fd>/<name>`, which resolves to the opened directory itself whatever
 * happens to its path — the `openat` Node lacks. Elsewhere the path is used, and the directory's
 * device and inode are compared before each rename (a narrow window remains there).
 */
export interface PinnedDir {
  /** The path of an entry of this directory, for file operations. */
  entry(name: string): string;
  /** Whether the directory is still inside the workspace root (and, off Linux, the same one). */
  stillInside(): Promise<boolean>;
  close(): Promise<void>;
}

/** The directory moved or was swapped for a symlink while a tool was writing. */
export class DirectoryEscapeError extends Error {
  override readonly name = 'DirectoryEscapeError';
  constructor() {
    super('the directory changed while writing (it left the workspace); nothing was written');
  }
}

/** The result a tool returns when its target directory escaped mid-write. */
export function escapedResult(shown: string): {
  ok: false;
  error_type: 'path_outside_workspace';
  error_message: string;
  path: string;
} {
  return workspaceFailure(
    'path_outside_workspace',
    `${shown}: the directory changed while writing (it left the workspace); nothing was written`,
    { path: shown },
  );
}

const procFd = process.platform === 'linux' && existsSync('/proc/self/fd');

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}

/**
 * Opens `dir` (a real path inside `root`) for writing into it.
 *
 * @throws {DirectoryEscapeError} when it is not a directory inside the root any more.
 */
export async function pinDirectory(root: string, dir: string): Promise<PinnedDir> {
  if (procFd) {
    let handle: FileHandle;
    try {
      handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch {
      throw new DirectoryEscapeError();
    }
    const base = `/proc/self/fd/${handle.fd}`;
    const inside = async (): Promise<boolean> => {
      try {
        return isInside(root, await realpath(base));
      } catch {
        return false;
      }
    };
    if (!(await inside())) {
      await handle.close();
      throw new DirectoryEscapeError();
    }
    return {
      entry: (name) => `${base}/${name}`,
      stillInside: inside,
      close: () => handle.close(),
    };
  }
  const identity = async (): Promise<string | undefined> => {
    try {
      const link = await lstat(dir);
      if (!link.isDirectory() || !isInside(root, await realpath(dir))) return undefined;
      const stats = await stat(dir);
      return `${stats.dev}:${stats.ino}`;
    } catch {
      return undefined;
    }
  };
  const pinned = await identity();
  if (pinned === undefined) throw new DirectoryEscapeError();
  return {
    entry: (name) => path.join(dir, name),
    stillInside: async () => (await identity()) === pinned,
    close: async () => undefined,
  };
}
