import type { Tool } from '../tool/tool.js';

/** A structured failure for the model. */
export interface FilesystemFailure {
  ok: false;
  error_type: string;
  error_message: string;
}

const CHANGED = 'the workspace changed while the tool ran:';
const LOOK_AGAIN =
  'Look at the workspace again (list_workspace_files, read_workspace_file) before retrying';

/**
 * Errors another process causes by changing the workspace while a tool runs (a directory renamed
 * away between two steps, one created in a gap): each gets the `error_type` the model would have
 * got had the change come first.
 */
const CHANGED_UNDERFOOT: Readonly<Record<string, readonly [type: string, what: string]>> = {
  ENOENT: ['not_found', 'a file or directory it used disappeared'],
  EEXIST: ['already_exists', 'a file or directory appeared where it was creating one'],
  ENOTDIR: ['not_a_directory', 'a directory it used was replaced by a file'],
  EISDIR: ['is_a_directory', 'a file it used was replaced by a directory'],
  ENOTEMPTY: ['directory_not_empty', 'a directory it used gained entries'],
};

/** Errors of the host's file permissions and disks, whatever the tool. */
const HOST_LIMITS: Readonly<
  Record<string, readonly [type: string, what: (place: string) => string]>
> = {
  EACCES: [
    'permission_denied',
    (place) => `the host's file permissions do not allow this in ${place}; ask the user`,
  ],
  EPERM: [
    'permission_denied',
    (place) => `the host's file permissions do not allow this in ${place}; ask the user`,
  ],
  EROFS: ['permission_denied', (place) => `${place} is on a read-only file system; ask the user`],
  ENOSPC: ['no_space_left', (place) => `the disk holding ${place} is full`],
  EDQUOT: ['no_space_left', (place) => `the disk quota for ${place} is used up`],
};

const codeOf = (error: unknown): string | undefined => {
  try {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The structured result for a permission or full-disk error (`permission_denied`,
 * `no_space_left`) met in `place` ("the workspace", "the skill's files"…), or `undefined` for any
 * other error. The message names no path: an errno message's is absolute and would reveal where
 * the host keeps things.
 */
export function hostLimitResult(error: unknown, place: string): FilesystemFailure | undefined {
  // The errno is often a few causes down (a sandbox `setup` error wrapping a write's error).
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current != null; depth += 1) {
    const code = codeOf(current);
    if (code !== undefined && Object.hasOwn(HOST_LIMITS, code)) {
      const [type, what] = HOST_LIMITS[code]!;
      return { ok: false, error_type: type, error_message: what(place) };
    }
    current = causeOf(current);
  }
  return undefined;
}

/** Causes followed at most (a cycle of causes ends there too). */
const MAX_CAUSE_DEPTH = 5;

function causeOf(error: unknown): unknown {
  try {
    return (error as { cause?: unknown }).cause;
  } catch {
    return undefined;
  }
}

/**
 * The structured result for a filesystem error a workspace tool threw — a tree changed underfoot,
 * a permission, a full disk — or `undefined` for any other error. No path in the message.
 */
export function filesystemErrorResult(error: unknown): FilesystemFailure | undefined {
  const code = codeOf(error);
  if (code !== undefined && Object.hasOwn(CHANGED_UNDERFOOT, code)) {
    const [type, what] = CHANGED_UNDERFOOT[code]!;
    return { ok: false, error_type: type, error_message: `${CHANGED} ${what}. ${LOOK_AGAIN}` };
  }
  return hostLimitResult(error, 'the workspace');
}

/** `tool`, answering a filesystem error with `filesystemErrorResult` instead of a bare `tool_error`. */
export function reportingFilesystemErrors(tool: Tool): Tool {
  const execute = tool.execute as (input: unknown, context: unknown) => unknown;
  return Object.freeze({
    ...tool,
    execute: async (input: unknown, context: unknown) => {
      try {
        return await execute(input, context);
      } catch (error) {
        const result = filesystemErrorResult(error);
        if (result) return result;
        throw error;
      }
    },
  }) as Tool;
}
