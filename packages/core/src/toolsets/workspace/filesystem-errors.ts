import type { Tool } from '../../tool/tool.js';

interface Meaning {
  readonly type: string;
  readonly message: string;
}

const CHANGED = 'the workspace changed while the tool ran:';
const LOOK_AGAIN =
  'Look at the workspace again (list_workspace_files, read_workspace_file) before retrying';

/**
 * What a filesystem error thrown mid-call means to the model. Most come from another process
 * changing the workspace while a tool ran (a directory renamed away between two steps, one
 * created in a gap): the `error_type` is the one the model would have got had the change come
 * first. The rest are the host's file permissions and disk. Other errors stay `tool_error`.
 */
const MEANINGS: Readonly<Record<string, Meaning>> = {
  ENOENT: {
    type: 'not_found',
    message: `${CHANGED} a file or directory it used disappeared. ${LOOK_AGAIN}`,
  },
  EEXIST: {
    type: 'already_exists',
    message: `${CHANGED} a file or directory appeared where it was creating one. ${LOOK_AGAIN}`,
  },
  ENOTDIR: {
    type: 'not_a_directory',
    message: `${CHANGED} a directory it used was replaced by a file. ${LOOK_AGAIN}`,
  },
  EISDIR: {
    type: 'is_a_directory',
    message: `${CHANGED} a file it used was replaced by a directory. ${LOOK_AGAIN}`,
  },
  ENOTEMPTY: {
    type: 'directory_not_empty',
    message: `${CHANGED} a directory it used gained entries. ${LOOK_AGAIN}`,
  },
  EACCES: {
    type: 'permission_denied',
    message: "the host's file permissions do not allow this in the workspace; ask the user",
  },
  EPERM: {
    type: 'permission_denied',
    message: "the host's file permissions do not allow this in the workspace; ask the user",
  },
  EROFS: {
    type: 'permission_denied',
    message: 'the workspace is on a read-only file system; ask the user',
  },
  ENOSPC: { type: 'no_space_left', message: 'the disk holding the workspace is full' },
  EDQUOT: { type: 'no_space_left', message: "the workspace owner's disk quota is used up" },
};

/**
 * The structured result for a filesystem error a workspace tool threw (a tree changed underfoot,
 * a permission, a full disk), or `undefined` for any other error. The message names no path: the
 * one in an errno message is absolute and would reveal where the root lives.
 */
export function filesystemErrorResult(
  error: unknown,
): { ok: false; error_type: string; error_message: string } | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const meaning =
    typeof code === 'string' && Object.hasOwn(MEANINGS, code) ? MEANINGS[code] : undefined;
  if (!meaning) return undefined;
  return { ok: false, error_type: meaning.type, error_message: meaning.message };
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
