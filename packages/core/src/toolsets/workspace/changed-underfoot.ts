import type { Tool } from '../../tool/tool.js';

/**
 * What a filesystem error means when another process changed the workspace while a tool ran (a
 * directory renamed away between two steps, one created in a gap): the `error_type` the model
 * would have got had the change come first. Other errors stay the gateway's `tool_error`.
 */
const CHANGED: Readonly<Record<string, { type: string; what: string }>> = {
  ENOENT: { type: 'not_found', what: 'a file or directory it used disappeared' },
  EEXIST: {
    type: 'already_exists',
    what: 'a file or directory appeared where it was creating one',
  },
  ENOTDIR: { type: 'not_a_directory', what: 'a directory it used was replaced by a file' },
  EISDIR: { type: 'is_a_directory', what: 'a file it used was replaced by a directory' },
  ENOTEMPTY: { type: 'directory_not_empty', what: 'a directory it used gained entries' },
};

/**
 * The structured result for an error thrown because the workspace changed underfoot, or
 * `undefined` for any other error. The message names no path: the one in an errno message is
 * absolute and would reveal where the root lives.
 */
export function changedUnderfootResult(
  error: unknown,
): { ok: false; error_type: string; error_message: string } | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const changed =
    typeof code === 'string' && Object.hasOwn(CHANGED, code) ? CHANGED[code] : undefined;
  if (!changed) return undefined;
  return {
    ok: false,
    error_type: changed.type,
    error_message: `the workspace changed while the tool ran: ${changed.what}. Look at the workspace again (list_workspace_files, read_workspace_file) before retrying`,
  };
}

/** `tool`, answering a filesystem race with `changedUnderfootResult` instead of a bare `tool_error`. */
export function reportingChangesUnderfoot(tool: Tool): Tool {
  const execute = tool.execute as (input: unknown, context: unknown) => unknown;
  return Object.freeze({
    ...tool,
    execute: async (input: unknown, context: unknown) => {
      try {
        return await execute(input, context);
      } catch (error) {
        const result = changedUnderfootResult(error);
        if (result) return result;
        throw error;
      }
    },
  }) as Tool;
}
