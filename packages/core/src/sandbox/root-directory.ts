import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInsideRoot, pathSegments, sandboxPathError } from './sandbox-paths.js';

/** Linux: an open descriptor's directory, usable as a path prefix (the `openat` Node lacks). */
const FD_DIR = '/proc/self/fd';
/** Whether descriptors can be addressed through `/proc/self/fd` here. */
export const HAS_PROC_FD = process.platform === 'linux' && existsSync(FD_DIR);

/**
 * A directory inside a session root, verified after it was opened: on Linux the directory stays
 * open and entries are addressed through `/proc/self/fd/<fd>/<name>`, so renaming a parent or
 * swapping it for a symlink after the check cannot move an operation outside the root.
 * Elsewhere (no `/proc`) every component is checked with `lstat`/`realpath` (a narrow race
 * remains there; `local_process` is not isolated anyway, and `bubblewrap` is Linux only).
 */
export interface RootDirectory {
  /** The directory's real host path. */
  readonly realPath: string;
  /** Whether entries are addressed through `/proc/self/fd`. */
  readonly procFd: boolean;
  /** A path for the directory itself (for `readdir`). */
  readonly self: string;
  /** A path for one entry of the directory (the name is a single segment). */
  entry(name: string): string;
  close(): Promise<void>;
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

/** The real path of an open descriptor (Linux). */
async function descriptorPath(handle: FileHandle): Promise<string> {
  return readlink(`${FD_DIR}/${handle.fd}`);
}

/**
 * Opens `relative` (a normalised session path) under `root` (a real path), creating missing
 * directories when `create` is set. Symlinks are followed only when the directory they lead to
 * is inside the root; anything else throws `KsadkError('unsupported')` with
 * `details.reason: 'path_outside_sandbox'`. Node's file-system errors (`ENOENT`, `ENOTDIR`…)
 * propagate as they are.
 */
export async function openRootDirectory(
  root: string,
  relative: string,
  options: { create?: boolean; procFd?: boolean } = {},
): Promise<RootDirectory> {
  const segments = pathSegments(relative);
  if (!(options.procFd ?? HAS_PROC_FD)) return walkByPath(root, segments, relative, options);
  let handle = await open(root, DIRECTORY_FLAGS);
  try {
    for (const segment of segments) {
      const next = `${FD_DIR}/${handle.fd}/${segment}`;
      let child: FileHandle;
      try {
        child = await open(next, DIRECTORY_FLAGS);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !options.create) throw error;
        await mkdir(next, { mode: 0o755 }).catch((mkdirError: NodeJS.ErrnoException) => {
          if (mkdirError.code !== 'EEXIST') throw mkdirError;
        });
        child = await open(next, DIRECTORY_FLAGS);
      }
      await handle.close();
      handle = child;
      if (!isInsideRoot(root, await descriptorPath(handle))) {
        throw sandboxPathError(
          'path_outside_sandbox',
          'the path goes through a symlink that leads outside the sandbox root',
          relative,
        );
      }
    }
    const opened = handle;
    const realPath = await descriptorPath(opened);
    return {
      realPath,
      procFd: true,
      self: `${FD_DIR}/${opened.fd}`,
      entry: (name) => `${FD_DIR}/${opened.fd}/${name}`,
      close: () => opened.close(),
    };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

async function walkByPath(
  root: string,
  segments: readonly string[],
  relative: string,
  options: { create?: boolean },
): Promise<RootDirectory> {
  let current = root;
  for (const segment of segments) {
    const next = path.join(current, segment);
    const stats = await lstat(next).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT' || !options.create) throw error;
      await mkdir(next, { mode: 0o755 });
      return lstat(next);
    });
    current = stats.isSymbolicLink() ? await realpath(next) : next;
    if (!isInsideRoot(root, current)) {
      throw sandboxPathError(
        'path_outside_sandbox',
        'the path goes through a symlink that leads outside the sandbox root',
        relative,
      );
    }
    if (!(await lstat(current)).isDirectory()) {
      throw Object.assign(new Error(`ENOTDIR: not a directory, ${segment}`), { code: 'ENOTDIR' });
    }
  }
  const realPath = current;
  return {
    realPath,
    procFd: false,
    self: realPath,
    entry: (name) => path.join(realPath, name),
    close: async () => undefined,
  };
}

/** The real path of a file opened from `dir`, to check that a followed symlink stayed inside. */
export async function openedFilePath(
  dir: RootDirectory,
  handle: FileHandle,
  name: string,
): Promise<string> {
  return dir.procFd ? descriptorPath(handle) : realpath(dir.entry(name));
}
