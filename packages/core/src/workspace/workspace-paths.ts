import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isReserved } from '../util/reserved-dirs.js';
import { echoValue } from '../util/sanitize-message.js';
import { workspaceFailure } from './failure.js';

/** A workspace path that passed every check. */
export interface ResolvedWorkspacePath {
  /** Real absolute path on the host (never shown to the model). */
  readonly absolute: string;
  /** Path relative to the root, with `/` separators; `.` for the root. */
  readonly relative: string;
  /** Whether the path exists. */
  readonly exists: boolean;
  /** `lstat` of the final component when it exists. */
  readonly kind: 'file' | 'directory' | 'symlink' | 'other' | 'missing';
}

/** Why a path was refused. */
export interface WorkspacePathError {
  readonly ok: false;
  readonly error_type: 'path_outside_workspace' | 'invalid_path' | 'not_found' | 'not_a_directory';
  readonly error_message: string;
  readonly path: string;
}

/** Longest model-supplied path accepted, in characters. */
export const MAX_PATH_CHARS = 1024;
/** Longest path segment, in UTF-8 bytes (the usual file-name limit). */
export const MAX_SEGMENT_BYTES = 255;

function refuse(
  errorType: WorkspacePathError['error_type'],
  message: string,
  input: string,
): WorkspacePathError {
  return workspaceFailure(errorType, message, { path: echoValue(input) });
}

function isInside(root: string, candidate: string): boolean {
  return (
    candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep)
  );
}

/**
 * Checks a model-supplied path against the workspace rules, without touching the file system:
 * relative only (no leading `/` or `\\`, no drive letter), no NUL byte, no empty segment, no
 * `..` that leaves the root, at most 1,024 characters and 255 bytes per segment; never trimmed
 * or otherwise altered. Backslashes count as separators. Returns the normalised relative
 * path (`.` for the root) or the refusal.
 */
export function normalizeWorkspacePath(input: unknown): string | WorkspacePathError {
  if (typeof input !== 'string')
    return refuse('invalid_path', 'path must be a string', String(input));
  if (input.length > MAX_PATH_CHARS) {
    return refuse('invalid_path', `path is longer than ${MAX_PATH_CHARS} characters`, input);
  }
  // Never altered: " a.txt" names " a.txt", not "a.txt".
  const raw = input;
  if (raw.includes('\0'))
    return refuse('path_outside_workspace', 'path must not contain a NUL byte', input);
  const unified = raw.replace(/\\/g, '/');
  if (unified === '' || unified === '.' || unified === './') return '.';
  if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified) || unified.startsWith('~')) {
    return refuse('path_outside_workspace', 'path must be relative to the workspace root', input);
  }
  const trimmed = unified.endsWith('/') ? unified.slice(0, -1) : unified;
  const segments = trimmed.split('/');
  if (segments.some((segment) => segment === '')) {
    return refuse('invalid_path', 'path must not contain empty segments', input);
  }
  if (segments.some((segment) => Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES)) {
    return refuse(
      'invalid_path',
      `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`,
      input,
    );
  }
  const normalized = path.posix.normalize(trimmed);
  if (normalized === '..' || normalized.startsWith('../')) {
    return refuse('path_outside_workspace', 'path must stay inside the workspace root', input);
  }
  return normalized === '' ? '.' : normalized;
}

/**
 * Resolves a model-supplied path inside `root` (a real path). Every existing component is
 * checked with `lstat`; a symlink is followed only when its real target is inside the root —
 * one pointing out (or dangling, or looping) is refused with `path_outside_workspace`, unless
 * it is the final component and `keepFinalSymlink` is set (delete removes the link itself).
 */
export async function resolveWorkspacePath(
  root: string,
  input: unknown,
  options: { mustExist?: boolean; keepFinalSymlink?: boolean } = {},
): Promise<ResolvedWorkspacePath | WorkspacePathError> {
  const normalized = normalizeWorkspacePath(input);
  if (typeof normalized !== 'string') return normalized;
  const shown = String(input);
  if (normalized === '.') return { absolute: root, relative: '.', exists: true, kind: 'directory' };
  const segments = normalized.split('/');
  let current = root;
  for (let index = 0; index < segments.length; index += 1) {
    const next = path.join(current, segments[index]!);
    const isLast = index === segments.length - 1;
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENAMETOOLONG')
        return refuse('invalid_path', 'a path segment is too long', shown);
      if (code === 'ENOTDIR')
        return refuse('not_a_directory', 'a parent of the path is not a directory', shown);
      if (code !== 'ENOENT') throw error;
      if (options.mustExist)
        return refuse('not_found', `workspace path not found: ${echoValue(shown)}`, shown);
      const absolute = path.join(current, ...segments.slice(index));
      if (isReserved(absolute)) {
        return refuse(
          'path_outside_workspace',
          `${echoValue(shown)} is inside a folder KsADK keeps private`,
          shown,
        );
      }
      return {
        absolute,
        relative: path.relative(root, absolute).split(path.sep).join('/'),
        exists: false,
        kind: 'missing',
      };
    }
    if (stats.isSymbolicLink()) {
      if (isLast && options.keepFinalSymlink) {
        let target: string | undefined;
        try {
          target = await realpath(next);
        } catch {
          target = undefined;
        }
        if (target === undefined || !isInside(root, target)) {
          return refuse(
            'path_outside_workspace',
            `${echoValue(shown)} is a symlink that leads outside the workspace`,
            shown,
          );
        }
        return {
          absolute: next,
          relative: path.relative(root, next).split(path.sep).join('/'),
          exists: true,
          kind: 'symlink',
        };
      }
      let target: string;
      try {
        target = await realpath(next);
      } catch {
        return refuse(
          'path_outside_workspace',
          `${echoValue(shown)} goes through a broken or looping symlink`,
          shown,
        );
      }
      if (!isInside(root, target)) {
        return refuse(
          'path_outside_workspace',
          `${echoValue(shown)} goes through a symlink that leads outside the workspace`,
          shown,
        );
      }
      current = target;
      stats = await lstat(target);
    } else {
      current = next;
    }
    if (!isLast && !stats.isDirectory()) {
      return refuse(
        'not_a_directory',
        `${segments.slice(0, index + 1).join('/')} is not a directory`,
        shown,
      );
    }
    if (isReserved(current)) {
      return refuse(
        'path_outside_workspace',
        `${echoValue(shown)} is inside a folder KsADK keeps private (saved outputs, memory); read saved outputs through their tool-results:// handle`,
        shown,
      );
    }
    if (isLast) {
      const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
      return {
        absolute: current,
        relative: path.relative(root, current).split(path.sep).join('/') || '.',
        exists: true,
        kind,
      };
    }
  }
  return refuse('invalid_path', 'path could not be resolved', shown);
}

/** True for a {@link WorkspacePathError}. */
export function isPathError(
  value: ResolvedWorkspacePath | WorkspacePathError,
): value is WorkspacePathError {
  return (value as WorkspacePathError).ok === false;
}
