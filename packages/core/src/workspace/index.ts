import { checkOptions } from '../errors/check-options.js';
import type { Tool } from '../tool/tool.js';
import { reportingFilesystemErrors } from './filesystem-errors.js';
import { editWorkspaceFileTool, multiEditWorkspaceFileTool } from './tools/edit-tools.js';
import { lintWorkspaceFileTool } from './tools/lint-tool.js';
import {
  listWorkspaceFilesTool,
  readWorkspaceFileTool,
  workspaceStatusTool,
} from './tools/read-tools.js';
import { searchWorkspaceFilesTool } from './tools/search-tool.js';
import {
  deleteWorkspaceFileTool,
  writeWorkspaceFilesTool,
  writeWorkspaceFileTool,
} from './tools/write-tools.js';
import {
  createWorkspaceSetup,
  type WorkspaceOptions,
  type WorkspaceSetup,
} from './workspace-setup.js';

/** The workspace toolset: its tools in catalogue order, and its shared state. */
export interface WorkspaceToolset {
  readonly tools: readonly Tool[];
  readonly setup: WorkspaceSetup;
}

/**
 * Creates the workspace tools (group `workspace`) over one root, or one root per invocation
 * context. Paths are confined to the root: absolute paths, escaping `..`, NUL bytes and empty
 * segments are refused with `path_outside_workspace` / `invalid_path`, and no tool follows a
 * symlink out of the root.
 *
 * @example
 * ```ts
 * const { tools } = createWorkspaceToolset({ root: ({ accountId }) => `/srv/workspaces/${accountId}` });
 * ```
 */
export function createWorkspaceToolset(options: WorkspaceOptions = {}): WorkspaceToolset {
  checkOptions(
    options,
    {
      root: true,
      maxWriteBytes: true,
      fileMode: true,
      dirMode: true,
      maxReadStateEntries: true,
      useRipgrep: true,
      env: true,
    },
    'createWorkspaceToolset()',
  );
  const setup = createWorkspaceSetup(options);
  return {
    setup,
    // A tree changed mid-call, a permission, a full disk: each is an answer, not a tool_error.
    tools: [
      workspaceStatusTool(setup),
      listWorkspaceFilesTool(setup),
      readWorkspaceFileTool(setup),
      writeWorkspaceFileTool(setup),
      writeWorkspaceFilesTool(setup),
      editWorkspaceFileTool(setup),
      multiEditWorkspaceFileTool(setup),
      lintWorkspaceFileTool(setup),
      searchWorkspaceFilesTool(setup),
      deleteWorkspaceFileTool(setup),
    ].map(reportingFilesystemErrors),
  };
}

// @ksadk/core/workspace — the workspace toolset.
export type { ReadRecord, ReadStateStore } from './read-state.js';
export type { WorkspaceRootIds, WorkspaceRootOption } from './workspace-root.js';
export type { WorkspaceOptions, WorkspaceSetup } from './workspace-setup.js';
