import type { ToolErrorResult } from '../gateway/results.js';
import type { Tool } from '../tool/tool.js';
import { codeOf, hostLimitResult } from '../util/filesystem-errors.js';
import type { WorkspaceErrorType } from './error-types.js';
import { workspaceFailure } from './failure.js';

const CHANGED = 'the workspace changed while the tool ran:';
const LOOK_AGAIN =
  'Look at the workspace again (list_workspace_files, read_workspace_file) before retrying';

/**
 * Errors another process causes by changing the workspace while a tool runs (a directory renamed
 * away between two steps, one created in a gap): each gets the `error_type` the model would have
 * got had the change come first.
 */
const CHANGED_UNDERFOOT: Readonly<
  Record<string, readonly [type: WorkspaceErrorType, what: string]>
> = {
  ENOENT: ['not_found', 'a file or directory it used disappeared'],
  EEXIST: ['already_exists', 'a file or directory appeared where it was creating one'],
  ENOTDIR: ['not_a_directory', 'a directory it used was replaced by a file'],
  EISDIR: ['is_a_directory', 'a file it used was replaced by a directory'],
  ENOTEMPTY: ['directory_not_empty', 'a directory it used gained entries'],
};

/**
 * The structured result for a filesystem error a workspace tool threw — a tree changed underfoot,
 * a permission, a full disk — or `undefined` for any other error. No path in the message.
 */
export function filesystemErrorResult(error: unknown): ToolErrorResult | undefined {
  const code = codeOf(error);
  if (code !== undefined && Object.hasOwn(CHANGED_UNDERFOOT, code)) {
    const [type, what] = CHANGED_UNDERFOOT[code]!;
    return workspaceFailure(type, `${CHANGED} ${what}. ${LOOK_AGAIN}`);
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
