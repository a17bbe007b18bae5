import { constants } from 'node:fs';
import { type FileHandle, lstat, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import type { ToolErrorResult } from '../gateway/results.js';
import { readAtMost, readEntries } from '../util/no-follow-files.js';
import { echoValue } from '../util/sanitize-message.js';
import { sandboxFailure } from './failure.js';
import { openedFilePath, openRootDirectory, type RootDirectory } from './root-directory.js';
import { isInsideRoot, normalizeSandboxPath, sandboxPathError } from './sandbox-paths.js';

/** Files read at most, by default. */
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024;
/** Files listed at most, by default. */
export const DEFAULT_MAX_LIST_ENTRIES = 10_000;

/** Internal knobs (tests force the portable, non-`/proc` strategy). */
export interface RootFileOptions {
  procFd?: boolean;
}

const OPEN_WRITE_FLAGS =
  constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
// A regular file a command left at the name (perhaps a hard link to another file) is removed and
// the file created afresh, never written through; a link or a FIFO there is refused.
const CREATE_FLAGS = OPEN_WRITE_FLAGS | constants.O_CREAT | constants.O_EXCL;
const OVER_FLAGS = OPEN_WRITE_FLAGS | constants.O_TRUNC;
// A FIFO or device planted by a command must not block or grab a terminal.
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** A file-system failure as a `KsadkError('internal')` whose `details.reason` is the errno code. */
function fsError(action: string, input: string, error: unknown): KsadkError {
  if (KsadkError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return new KsadkError('internal', `could not ${action} ${echoValue(input)} (${code})`, {
    cause: error,
    details: { reason: code, path: echoValue(input) },
  });
}

function splitFilePath(input: unknown): { dir: string; name: string; shown: string } {
  const relative = normalizeSandboxPath(input);
  if (relative === '.') throw sandboxPathError('invalid_path', 'a file path is needed', input);
  return {
    dir: path.posix.dirname(relative),
    name: path.posix.basename(relative),
    shown: relative,
  };
}

async function withDirectory<T>(
  root: string,
  relative: string,
  options: RootFileOptions & { create?: boolean },
  use: (dir: RootDirectory) => Promise<T>,
): Promise<T> {
  const dir = await openRootDirectory(root, relative, options);
  try {
    return await use(dir);
  } finally {
    await dir.close();
  }
}

async function closing<T>(handle: FileHandle, use: (handle: FileHandle) => Promise<T>): Promise<T> {
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file under `root` (a real path), creating parent directories. The final component is
 * opened without following symlinks and must be a regular file (or new).
 */
export async function writeRootFile(
  root: string,
  input: unknown,
  data: string | Uint8Array,
  options: RootFileOptions = {},
): Promise<void> {
  const { dir, name, shown } = splitFilePath(input);
  try {
    await withDirectory(root, dir, { ...options, create: true }, async (opened) => {
      const existing = await lstat(opened.entry(name)).catch(() => undefined);
      if (existing?.isFile()) await unlink(opened.entry(name));
      const flags = existing && !existing.isFile() ? OVER_FLAGS : CREATE_FLAGS;
      const handle = await open(opened.entry(name), flags, 0o644).catch((error) => {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw sandboxPathError('invalid_path', 'the name was taken while writing', shown);
        if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
          throw sandboxPathError(
            'path_outside_sandbox',
            'a written file must not be a symlink',
            shown,
          );
        }
        throw error;
      });
      await closing(handle, async () => {
        if (!(await handle.stat()).isFile())
          throw sandboxPathError('invalid_path', 'not a regular file', shown);
        // The file it replaced keeps its permissions (an executable script stays executable).
        if (existing?.isFile()) await handle.chmod(existing.mode & 0o7777);
        await handle.writeFile(data);
      });
    });
  } catch (error) {
    throw fsError('write', shown, error);
  }
}

/**
 * Reads a regular file under `root`. A symlink is followed only when the file it leads to is
 * inside the root; files over `maxBytes` are refused (`details.reason: 'file_too_large'`).
 */
export async function readRootFile(
  root: string,
  input: unknown,
  options: RootFileOptions & { maxBytes?: number } = {},
): Promise<Uint8Array> {
  const { dir, name, shown } = splitFilePath(input);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  try {
    return await withDirectory(root, dir, options, async (opened) => {
      const handle = await open(opened.entry(name), READ_FLAGS);
      return closing(handle, async () => {
        if (!isInsideRoot(root, await openedFilePath(opened, handle, name))) {
          throw sandboxPathError(
            'path_outside_sandbox',
            'the file is a symlink that leads outside the sandbox root',
            shown,
          );
        }
        const stats = await handle.stat();
        if (!stats.isFile()) throw sandboxPathError('invalid_path', 'not a regular file', shown);
        const tooLarge = new KsadkError(
          'unsupported',
          `${echoValue(shown)} is larger than ${maxBytes} bytes`,
          { details: { reason: 'file_too_large', path: echoValue(shown) } },
        );
        const data = await readAtMost(handle, stats.size, maxBytes);
        if (!data) throw tooLarge;
        return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      });
    });
  } catch (error) {
    throw fsError('read', shown, error);
  }
}

/**
 * Regular files under a directory of `root`, recursively, as root-relative paths, sorted.
 * Symlinks are not followed (nor listed); at most `maxEntries` paths are collected, and at most
 * ten times as many entries (folders included) are looked at, so a tree of empty folders ends
 * the walk too.
 */
export async function listRootFiles(
  root: string,
  input: unknown,
  options: RootFileOptions & { maxEntries?: number } = {},
): Promise<string[]> {
  const start = normalizeSandboxPath(input);
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_LIST_ENTRIES;
  const files: string[] = [];
  const pending = [start];
  let visitable = maxEntries * 10;
  try {
    while (pending.length > 0 && files.length < maxEntries && visitable > 0) {
      const relative = pending.shift()!;
      // No more entries read than may still be looked at: a huge folder is not loaded whole.
      const entries = await withDirectory(root, relative, options, (dir) =>
        readEntries(dir.self, visitable).then(({ entries: read }) => read),
      );
      visitable -= entries.length;
      for (const entry of entries) {
        const child = relative === '.' ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) pending.push(child);
        else if (entry.isFile() && files.length < maxEntries) files.push(child);
      }
    }
  } catch (error) {
    throw fsError('list', start, error);
  }
  return files.sort();
}

/** A command's working directory: its real host path, or why it was refused. */
export type CwdResolution =
  | { ok: true; path: string }
  | (ToolErrorResult & { error_type: 'path_outside_sandbox' | 'cwd_not_found' });

/** Resolves a command's `cwd` (relative to `root`) to an existing directory inside it. */
export async function resolveRootCwd(
  root: string,
  input: unknown,
  options: RootFileOptions = {},
): Promise<CwdResolution> {
  let relative: string;
  try {
    relative = normalizeSandboxPath(input ?? '.');
  } catch (error) {
    return sandboxFailure('path_outside_sandbox', (error as Error).message);
  }
  try {
    const dir = await openRootDirectory(root, relative, options);
    await dir.close();
    return { ok: true, path: dir.realPath };
  } catch (error) {
    if (KsadkError.isInstance(error)) return sandboxFailure('path_outside_sandbox', error.message);
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    return sandboxFailure(
      'cwd_not_found',
      `the working directory ${echoValue(relative)} is not a directory inside the sandbox root (${code})`,
    );
  }
}
