import { constants, type Dir, type Dirent, existsSync } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  opendir,
  rename,
  rmdir,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';

/**
 * File operations inside a folder whose contents someone else controls (a sandboxed workflow's
 * run folder, a skill another process may be changing): no symbolic link is ever followed, at any
 * depth; only regular files are read; files are created exclusively; every read and every walk
 * is bounded. On Linux each directory on the way is opened `O_DIRECTORY | O_NOFOLLOW` and held
 * open, and the next one is opened through `/proc/self/fd/<fd>/<name>` (the `openat` Node lacks),
 * so swapping any part of the path for a link after it was checked cannot move the operation.
 * Elsewhere each part is checked with `lstat` first (a narrow race remains there).
 */

const FD_DIR = '/proc/self/fd';
const HAS_PROC_FD = process.platform === 'linux' && existsSync(FD_DIR);
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// A FIFO or device put in the way must neither block nor become a terminal.
const READ_FLAGS =
  constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
const CREATE_FLAGS =
  constants.O_WRONLY |
  constants.O_CREAT |
  constants.O_EXCL |
  constants.O_NOFOLLOW |
  constants.O_NONBLOCK |
  constants.O_NOCTTY;

/** Why an operation was refused: what was in the way. */
export type NoFollowRefusal = 'not_found' | 'link' | 'not_regular' | 'too_large';

/** A refusal of the no-follow operations (`reason` says what was in the way). */
export class NoFollowError extends Error {
  override readonly name = 'NoFollowError';
  constructor(
    readonly reason: NoFollowRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** A directory held open; its entries are addressed without following links. */
export interface HeldDirectory {
  /** A path naming the directory itself (for `readdir`). */
  readonly self: string;
  /** A path naming one entry (a single segment) of the directory, never followed if a link. */
  entry(name: string): string;
  close(): Promise<void>;
}

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException)?.code;

/** The segments of a relative POSIX path; `..`, absolute paths and NUL are refused. */
export function relativeSegments(relative: string): string[] {
  if (relative.includes('\0') || path.posix.isAbsolute(relative))
    throw new NoFollowError('not_found', 'not a relative path');
  const segments = relative.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw new NoFollowError('not_found', 'the path leaves its folder');
  return segments;
}

function refusalOf(error: unknown): NoFollowError | undefined {
  const code = codeOf(error);
  if (code === 'ELOOP') return new NoFollowError('link', 'a part of the path is a symbolic link');
  if (code === 'ENOTDIR') return new NoFollowError('not_regular', 'a part of the path is a file');
  if (code === 'ENOENT') return new NoFollowError('not_found', 'no such file or directory');
  return undefined;
}

async function openDirectory(target: string): Promise<FileHandle> {
  try {
    return await open(target, DIRECTORY_FLAGS);
  } catch (error) {
    // Linux answers a link opened `O_DIRECTORY | O_NOFOLLOW` with ENOTDIR, as for a file.
    if (
      codeOf(error) === 'ENOTDIR' &&
      (await lstat(target).catch(() => undefined))?.isSymbolicLink()
    )
      throw new NoFollowError('link', 'a part of the path is a symbolic link');
    throw refusalOf(error) ?? error;
  }
}

async function openTrustedRoot(root: string): Promise<FileHandle> {
  try {
    return await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw refusalOf(error) ?? error;
  }
}

/**
 * Opens the directory `segments` below `root` (itself trusted), each part without following a
 * link; missing parts are made (mode 0755) when `create` is set.
 *
 * @throws {NoFollowError} when a part is missing, a link or not a directory.
 */
export async function holdDirectory(
  root: string,
  segments: readonly string[],
  options: { create?: boolean } = {},
): Promise<HeldDirectory> {
  if (!HAS_PROC_FD) return checkedByPath(root, segments, options);
  // The root itself is trusted (it may be reached through a link); what lies below is not.
  let handle = await openTrustedRoot(root);
  try {
    for (const segment of segments) {
      const next = `${FD_DIR}/${handle.fd}/${segment}`;
      let child: FileHandle;
      try {
        child = await openDirectory(next);
      } catch (error) {
        if (!(error instanceof NoFollowError) || error.reason !== 'not_found' || !options.create)
          throw error;
        await mkdir(next, { mode: 0o755 }).catch((made: unknown) => {
          if (codeOf(made) !== 'EEXIST') throw made;
        });
        child = await openDirectory(next);
      }
      await handle.close();
      handle = child;
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return heldFrom(handle);
}

const heldFrom = (handle: FileHandle): HeldDirectory => ({
  self: `${FD_DIR}/${handle.fd}`,
  entry: (name) => `${FD_DIR}/${handle.fd}/${name}`,
  close: () => handle.close(),
});

async function checkedByPath(
  root: string,
  segments: readonly string[],
  options: { create?: boolean },
): Promise<HeldDirectory> {
  let current = root;
  for (const segment of segments) {
    current = path.join(current, segment);
    let stats = await lstat(current).catch((error: unknown) => {
      if (codeOf(error) === 'ENOENT' && options.create) return undefined;
      throw refusalOf(error) ?? error;
    });
    if (!stats) {
      await mkdir(current, { mode: 0o755 }).catch((made: unknown) => {
        if (codeOf(made) !== 'EEXIST') throw made;
      });
      stats = await lstat(current);
    }
    if (stats.isSymbolicLink()) throw new NoFollowError('link', 'a part of the path is a link');
    if (!stats.isDirectory()) throw new NoFollowError('not_regular', 'a part is not a directory');
  }
  const dir = current;
  return { self: dir, entry: (name) => path.join(dir, name), close: async () => undefined };
}

/** Opens the directory `name` of a held directory, without following a link. */
async function holdChild(dir: HeldDirectory, name: string): Promise<HeldDirectory> {
  if (!HAS_PROC_FD) return checkedByPath(dir.self, [name], {});
  return heldFrom(await openDirectory(dir.entry(name)));
}

/** Runs `use` with the parent directory of `relative` held, and the last segment's name. */
export async function withParent<T>(
  root: string,
  relative: string,
  use: (dir: HeldDirectory, name: string) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const segments = relativeSegments(relative);
  const name = segments.pop();
  if (name === undefined) throw new NoFollowError('not_regular', 'the path names the folder');
  const dir = await holdDirectory(root, segments, options);
  try {
    return await use(dir, name);
  } finally {
    await dir.close();
  }
}

/**
 * Reads an open file whose `fstat` said `size` bytes, at most `maxBytes`: `undefined` when it holds
 * more (one byte past the cap is looked for, so a file that grew since is noticed).
 */
export async function readAtMost(
  handle: FileHandle,
  size: number,
  maxBytes: number,
): Promise<Buffer | undefined> {
  if (size > maxBytes) return undefined;
  const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
  let filled = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
    if (bytesRead === 0) break;
    filled += bytesRead;
    if (filled === buffer.length) {
      if (filled > maxBytes) return undefined;
      break;
    }
  }
  return buffer.subarray(0, filled);
}

/** Reads an open regular file, at most `maxBytes`. */
async function readBounded(handle: FileHandle, maxBytes: number): Promise<Buffer> {
  const stats = await handle.stat();
  if (!stats.isFile()) throw new NoFollowError('not_regular', 'not a regular file');
  const data = await readAtMost(handle, stats.size, maxBytes);
  if (!data) throw new NoFollowError('too_large', `the file is larger than ${maxBytes} bytes`);
  return data;
}

/**
 * Reads the regular file `relative` below `root`, following no link on the way.
 *
 * @throws {NoFollowError} when it is missing, a link, not a regular file (a FIFO, a device, a
 * directory) or larger than `maxBytes`.
 */
export async function readNoFollow(
  root: string,
  relative: string,
  maxBytes: number,
): Promise<Buffer> {
  return withParent(root, relative, async (dir, name) => {
    let handle: FileHandle;
    try {
      handle = await open(dir.entry(name), READ_FLAGS);
    } catch (error) {
      throw refusalOf(error) ?? error;
    }
    try {
      return await readBounded(handle, maxBytes);
    } finally {
      await handle.close();
    }
  });
}

/** Whether `relative` below `root` is a regular file, reached without following a link. */
export async function isRegularFileNoFollow(root: string, relative: string): Promise<boolean> {
  try {
    return await withParent(root, relative, async (dir, name) =>
      (await lstat(dir.entry(name))).isFile(),
    );
  } catch {
    return false;
  }
}

/**
 * Writes `data` to a new file `relative` below `root` (parents made as needed, none followed):
 * whatever stood at the name (a file, a link, a FIFO) is removed first, then the file is created
 * exclusively, so a link planted there is replaced, never written through.
 *
 * @throws {NoFollowError} when a parent is a link or not a directory, or the name is a directory.
 */
export async function writeExclusive(
  root: string,
  relative: string,
  data: Uint8Array | string,
): Promise<void> {
  await withParent(
    root,
    relative,
    async (dir, name) => {
      const target = dir.entry(name);
      const existing = await lstat(target).catch(() => undefined);
      if (existing?.isDirectory())
        throw new NoFollowError('not_regular', 'a directory stands where the file goes');
      if (existing) await unlink(target);
      let handle: FileHandle;
      try {
        handle = await open(target, CREATE_FLAGS, 0o644);
      } catch (error) {
        // EEXIST: something was put there again since; it is not written through.
        if (codeOf(error) === 'EEXIST')
          throw new NoFollowError('not_regular', 'the name was taken while writing');
        throw refusalOf(error) ?? error;
      }
      try {
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
    },
    { create: true },
  );
}

/** Entries read from a folder at a time while removing it. */
const REMOVE_BATCH = 10_000;
/** Batches per folder before giving up on one that keeps gaining entries (10 million entries). */
const REMOVE_BATCHES = 1_000;

/** Removes a folder's contents through the held folder `top`, then `top`'s entry `name` itself. */
async function removeHeldTree(parent: HeldDirectory, name: string): Promise<void> {
  let top: HeldDirectory;
  try {
    top = await holdChild(parent, name);
  } catch (error) {
    // Not a folder (any more): a file, a link or a FIFO is unlinked itself.
    if (error instanceof NoFollowError && error.reason !== 'not_found')
      await unlink(parent.entry(name)).catch(ignoreMissing);
    return;
  }
  try {
    // Subfolders are moved up into `top` (a rename never follows the link it moves), so only
    // one folder below `top` is held at a time, however deep the tree goes.
    const pending: string[] = [''];
    const queued = new Set<string>();
    let moved = 0;
    while (pending.length > 0) {
      const current = pending.pop()!;
      let dir: HeldDirectory;
      try {
        dir = current === '' ? top : await holdChild(top, current);
      } catch {
        await unlink(top.entry(current)).catch(ignoreMissing);
        continue;
      }
      try {
        for (let batch = 0; batch < REMOVE_BATCHES; batch += 1) {
          const { entries } = await readEntries(dir.self, REMOVE_BATCH);
          if (entries.length === 0) break;
          let removed = 0;
          for (const entry of entries) {
            if (!entry.isDirectory()) {
              await unlink(dir.entry(entry.name)).catch(ignoreMissing);
              removed += 1;
              continue;
            }
            if (dir === top) {
              // At the top already: queued as it is (once), not moved.
              if (!queued.has(entry.name)) {
                queued.add(entry.name);
                pending.push(entry.name);
                removed += 1;
              }
              continue;
            }
            const flat = `.ksadk-removing-${moved++}-${Math.random().toString(36).slice(2, 8)}`;
            await rename(dir.entry(entry.name), top.entry(flat)).then(() => {
              queued.add(flat);
              pending.push(flat);
            }, ignoreMissing);
            removed += 1;
          }
          if (removed === 0) break;
        }
      } finally {
        if (dir !== top) await dir.close();
      }
      if (current !== '') await rmdir(top.entry(current)).catch(ignoreMissing);
    }
  } finally {
    await top.close();
  }
  await rmdir(parent.entry(name)).catch(ignoreMissing);
}

const ignoreMissing = (error: unknown): void => {
  if (codeOf(error) !== 'ENOENT') throw error;
};

/**
 * Removes `relative` below `root` — a file, a link itself (never what it points at), or a whole
 * folder — following no link at any depth, even while another process keeps swapping parts of
 * the tree for links: every folder is opened without following and held, and every removal goes
 * through the held folder. A path reached only through a link is left alone.
 */
export async function removeNoFollow(root: string, relative: string): Promise<void> {
  try {
    await withParent(root, relative, async (dir, name) => {
      const stats = await lstat(dir.entry(name)).catch(() => undefined);
      if (!stats) return;
      if (stats.isDirectory()) await removeHeldTree(dir, name);
      else await unlink(dir.entry(name)).catch(ignoreMissing);
    });
  } catch (error) {
    // Missing, or reached only through a link: nothing of the folder's own stands there.
    if (error instanceof NoFollowError) return;
    throw error;
  }
}

/** Limits of {@link listFilesNoFollow}. */
export interface FileWalkLimits {
  /** Files returned at most. */
  readonly maxFiles: number;
  /** Directory entries looked at, at most (files, folders and anything else). */
  readonly maxEntries: number;
  /** Folder depth below the start. */
  readonly maxDepth: number;
  /** Time the walk may take, in milliseconds. */
  readonly deadlineMs: number;
}

/** The regular files of a walk, and whether a limit stopped it before the end. */
export interface FileWalk {
  readonly files: string[];
  readonly truncated: boolean;
}

/** At most `max` entries of a directory (none when it cannot be read), and whether it holds more. */
export async function readEntries(
  dir: string,
  max: number,
): Promise<{ entries: Dirent[]; more: boolean }> {
  const entries: Dirent[] = [];
  let handle: Dir;
  try {
    handle = await opendir(dir);
  } catch {
    return { entries, more: false };
  }
  try {
    for (;;) {
      const entry = await handle.read();
      if (entry === null) return { entries, more: false };
      if (entries.length >= max) return { entries, more: true };
      entries.push(entry);
    }
  } catch {
    return { entries, more: false };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Regular files below the folder `relative` of `root`, as paths relative to that folder, sorted;
 * links are neither followed nor listed. The walk is asynchronous (the event loop keeps turning)
 * and stops at the first limit it meets, with `truncated` set. A start folder that is missing or
 * a link gives no files.
 */
export async function listFilesNoFollow(
  root: string,
  relative: string,
  limits: FileWalkLimits,
): Promise<FileWalk> {
  const files: string[] = [];
  const deadline = performance.now() + limits.deadlineMs;
  let visited = 0;
  /** Something was left out (a bound was met). */
  let truncated = false;
  /** A bound of the whole walk was met: nothing more is looked at. */
  let stopped = false;
  const walk = async (dir: HeldDirectory, prefix: string, depth: number): Promise<void> => {
    // Read no more entries than the walk may still look at: a folder of a million names is
    // neither loaded whole nor sorted on the event loop.
    const { entries, more } = await readEntries(dir.self, limits.maxEntries - visited);
    if (more) truncated = stopped = true;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (performance.now() > deadline) {
        truncated = stopped = true;
        return;
      }
      visited += 1;
      const child = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isFile()) {
        // Truncated only when there is a file more than may be listed.
        if (files.length >= limits.maxFiles) {
          truncated = stopped = true;
          return;
        }
        files.push(child);
      } else if (entry.isDirectory()) {
        if (depth >= limits.maxDepth) {
          truncated = true;
          continue;
        }
        let inner: HeldDirectory;
        try {
          // Opened without following: a folder swapped for a link since it was read is skipped.
          inner = await holdChild(dir, entry.name);
        } catch {
          continue;
        }
        try {
          await walk(inner, child, depth + 1);
        } finally {
          await inner.close();
        }
        if (stopped) return;
      }
    }
  };
  let start: HeldDirectory;
  try {
    start = await holdDirectory(root, relativeSegments(relative));
  } catch {
    return { files: [], truncated: false };
  }
  try {
    await walk(start, '', 0);
  } finally {
    await start.close();
  }
  return { files: files.sort(), truncated };
}
