import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import type { ResultBudget } from '../budget/result-budget.js';
import { resolveResultHandle } from '../budget/result-store.js';
import type { InvocationContext } from '../context/invocation-context.js';
import { echoValue } from '../util/sanitize-message.js';
import { readDirectly } from './direct-read.js';
import { workspaceFailure } from './failure.js';
import { openedInside } from './opened-path.js';
import {
  isPathError,
  normalizeWorkspacePath,
  type ResolvedWorkspacePath,
  resolveWorkspacePath,
  type WorkspacePathError,
} from './workspace-paths.js';

/** Largest file the text tools read. */
export const MAX_TEXT_FILE_BYTES = 2 * 1024 * 1024;

/** A text file read for a tool. */
export interface TextFile {
  readonly text: string;
  readonly sizeBytes: number;
  readonly mtimeNs: bigint;
}

/** Why a text file could not be read. */
export type TextFileError = {
  ok: false;
  error_type: 'not_found' | 'too_large' | 'not_utf8_text' | 'not_a_file' | 'path_outside_workspace';
  error_message: string;
};

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The bytes as UTF-8 text, or `undefined` when they are not valid UTF-8. */
function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

const notAFile = (shownPath: string): TextFileError =>
  workspaceFailure('not_a_file', `${echoValue(shownPath)} is not a regular file`);

/**
 * The file's bytes, read from the start with the size `fstat` gave (one read for a file that did
 * not change; `readFile` would `fstat` again and read once more to find the end). A file that grew
 * meanwhile is read on to its end, or to just past `limit`.
 */
async function readAll(handle: FileHandle, size: number, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let position = 0;
  let ask = size + 1;
  for (;;) {
    const buffer = Buffer.allocUnsafe(ask);
    const { bytesRead } = await handle.read(buffer, 0, ask, position);
    if (bytesRead > 0) chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
    // A short read of a regular file is its end; past the limit, what follows does not matter.
    if (bytesRead < ask || position > limit) break;
    ask = Math.min(Math.max(ask, 64 * 1024), 8 * 1024 * 1024);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * Reads a UTF-8 text file without following a final symlink (`O_NOFOLLOW`) and without blocking
 * on a FIFO or device (`O_NONBLOCK`, then anything but a regular file is refused), refusing files
 * over `maxBytes` and files that are not valid UTF-8. A leading BOM is kept as text. With `root`,
 * what was opened must lie inside it (see `openedInside`): a folder on the way swapped for a link
 * out of the workspace after the path was resolved is `path_outside_workspace`, nothing read.
 */
export async function readTextFile(
  absolute: string,
  shownPath: string,
  maxBytes = MAX_TEXT_FILE_BYTES,
  root?: string,
): Promise<TextFile | TextFileError> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return workspaceFailure('not_found', `workspace file not found: ${echoValue(shownPath)}`);
    if (code === 'ELOOP' || code === 'EISDIR' || code === 'ENXIO' || code === 'EAGAIN') {
      return workspaceFailure('not_a_file', `${echoValue(shownPath)} is not a regular file`);
    }
    throw error;
  }
  try {
    const [stats, inside] = await Promise.all([
      handle.stat({ bigint: true }),
      root === undefined || openedInside(handle.fd, root),
    ]);
    if (!inside) {
      return workspaceFailure(
        'path_outside_workspace',
        `${echoValue(shownPath)} changed while it was opened (a folder on the way now leads outside the workspace); nothing was read`,
      );
    }
    if (!stats.isFile())
      return workspaceFailure('not_a_file', `${echoValue(shownPath)} is not a regular file`);
    if (stats.size > BigInt(maxBytes)) {
      return workspaceFailure(
        'too_large',
        `file is larger than ${Math.round(maxBytes / 1024 / 1024)}MB: ${echoValue(shownPath)}`,
      );
    }
    const bytes = await readAll(handle, Number(stats.size), maxBytes);
    if (bytes.length > maxBytes) {
      return workspaceFailure(
        'too_large',
        `file is larger than ${Math.round(maxBytes / 1024 / 1024)}MB: ${echoValue(shownPath)}`,
      );
    }
    const text = decodeText(bytes);
    if (text === undefined)
      return workspaceFailure('not_utf8_text', `file is not utf-8 text: ${echoValue(shownPath)}`);
    return { text, sizeBytes: bytes.length, mtimeNs: stats.mtimeNs };
  } finally {
    await handle.close();
  }
}

/** True for a {@link TextFileError}. */
export function isTextFileError(value: TextFile | TextFileError): value is TextFileError {
  return (value as TextFileError).ok === false;
}

/** Why a workspace text file could not be opened: a path refusal or a read failure (with the path). */
export type WorkspaceTextError = WorkspacePathError | (TextFileError & { path: string });

/** Resolves a model-supplied path inside `root` and reads it as text: the one way the read-only tools open a file. */
export async function readWorkspaceText(
  root: string,
  shownPath: string,
): Promise<{ target: ResolvedWorkspacePath; file: TextFile } | WorkspaceTextError> {
  const relative = normalizeWorkspacePath(shownPath);
  if (typeof relative === 'string' && relative !== '.') {
    // The usual case — a regular file reached through no link — in three thread-pool round trips;
    // anything else is read (or refused, with the reason) the careful way below.
    const direct = await readDirectly(root, relative, MAX_TEXT_FILE_BYTES);
    const text = direct && decodeText(direct.bytes);
    if (direct && text !== undefined) {
      return {
        target: { absolute: path.join(root, relative), relative, exists: true, kind: 'file' },
        file: { text, sizeBytes: direct.sizeBytes, mtimeNs: direct.mtimeNs },
      };
    }
  }
  const target = await resolveWorkspacePath(root, shownPath, { mustExist: true });
  if (isPathError(target)) return target;
  // FIFOs, sockets and devices are refused before anything opens them.
  if (target.kind !== 'file') return { ...notAFile(shownPath), path: target.relative };
  const file = await readTextFile(target.absolute, shownPath, MAX_TEXT_FILE_BYTES, root);
  if (isTextFileError(file)) return { ...file, path: target.relative };
  return { target, file };
}

/**
 * Reads a persisted tool output back by its `tool-results://` handle, from the caller's own
 * account and session folder only: another tenant's handle names nothing here.
 */
export async function readPersistedText(
  handle: string,
  budget: ResultBudget,
  context: InvocationContext,
): Promise<
  { target: { relative: string; absolute: string }; file: TextFile } | WorkspaceTextError
> {
  const absolute = await resolveResultHandle(handle, budget, context);
  const notFound = workspaceFailure(
    'not_found',
    `no saved tool output for this session at ${handle.slice(0, 200)}`,
    { path: handle.slice(0, 200) },
  );
  if (!absolute) return notFound;
  const file = await readTextFile(absolute, handle, budget.maxPersistBytes);
  if (isTextFileError(file))
    return file.error_type === 'not_found' ? notFound : { ...file, path: handle };
  return { target: { relative: handle, absolute }, file };
}
