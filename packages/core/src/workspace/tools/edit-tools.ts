import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { budgetTextFields } from '../../budget/result-budget.js';
import { defineTool } from '../../tool/define-tool.js';
import type { Tool, ToolExecutionContext } from '../../tool/tool.js';
import { echoValue } from '../../util/sanitize-message.js';
import { replaceFileAtomically } from '../atomic-file.js';
import { applyEdit, type EditRequest } from '../edit-matching.js';
import { workspaceFailure } from '../failure.js';
import { loadDiff } from '../lazy-deps.js';
import { DirectoryEscapeError, escapedResult, pinDirectory } from '../pinned-dir.js';
import { isTextFileError, readTextFile } from '../text-file.js';
import {
  isPathError,
  type ResolvedWorkspacePath,
  resolveWorkspacePath,
} from '../workspace-paths.js';
import {
  recordFullRead,
  WORKSPACE_BOUNDARY,
  WORKSPACE_GROUP,
  type WorkspaceSetup,
} from '../workspace-setup.js';

type Loaded =
  | { loaded: true; root: string; target: ResolvedWorkspacePath; text: string }
  | { loaded: false; failure: Record<string, unknown> };

/** Resolves, checks the read state and loads the file an edit applies to. */
async function loadForEdit(
  setup: WorkspaceSetup,
  context: ToolExecutionContext,
  shown: string,
): Promise<Loaded> {
  const root = await setup.rootFor(context.invocation);
  const target = await resolveWorkspacePath(root, shown, { mustExist: true });
  if (isPathError(target)) return { loaded: false, failure: { ...target } };
  const { account, session } = setup.keyOf(context.invocation);
  const record = setup.readState.get(account, session, target.relative);
  if (!record) {
    return {
      loaded: false,
      failure: workspaceFailure('file_not_read', 'file must be read before editing', {
        path: target.relative,
        suggested_action: `Call read_workspace_file(path="${target.relative}") before editing.`,
      }),
    };
  }
  const file =
    target.kind === 'file'
      ? await readTextFile(target.absolute, shown, undefined, root)
      : workspaceFailure('not_a_file', `${echoValue(shown)} is not a regular file`);
  if (isTextFileError(file)) return { loaded: false, failure: { ...file, path: target.relative } };
  if (file.mtimeNs !== record.mtimeNs || file.sizeBytes !== record.sizeBytes) {
    return {
      loaded: false,
      failure: workspaceFailure('file_modified_since_read', 'file changed since it was last read', {
        path: target.relative,
        suggested_action: `Re-read ${target.relative} with read_workspace_file and retry the edit.`,
      }),
    };
  }
  return { loaded: true, root, target, text: file.text };
}

/**
 * Writes the edited text atomically into the pinned parent directory, refreshes the read state
 * and builds the budgeted diff. `undefined` when the directory left the workspace mid-write.
 */
async function saveEdit(
  setup: WorkspaceSetup,
  context: ToolExecutionContext,
  toolName: string,
  root: string,
  target: ResolvedWorkspacePath,
  before: string,
  after: string,
): Promise<Record<string, unknown> | undefined> {
  const mode = (await stat(target.absolute)).mode & 0o777;
  try {
    const dir = await pinDirectory(root, path.dirname(target.absolute));
    try {
      await replaceFileAtomically(dir, path.basename(target.absolute), after, mode);
    } finally {
      await dir.close();
    }
  } catch (error) {
    if (error instanceof DirectoryEscapeError) return undefined;
    throw error;
  }
  const size = await recordFullRead(setup, context.invocation, target, after);
  const mtimeNs = (await stat(target.absolute, { bigint: true })).mtimeNs;
  const { createTwoFilesPatch } = await loadDiff();
  const diff = createTwoFilesPatch(
    `${target.relative} before`,
    `${target.relative} after`,
    before,
    after,
    '',
    '',
    { context: 3 },
  );
  const budgeted = await budgetTextFields({ diff }, toolName, ['diff'], {
    budget: context.gateway.budget,
    metadata: { toolCallId: context.callId },
    context: context.invocation,
  });
  return {
    diff: budgeted['diff'],
    truncated: budgeted['diff_truncated'],
    original_chars: budgeted['diff_original_chars'],
    preview_chars: budgeted['diff_preview_chars'],
    ...(budgeted['persisted_outputs'] ? { persisted_outputs: budgeted['persisted_outputs'] } : {}),
    size,
    mtime_ns: Number(mtimeNs),
  };
}

function toEditRequest(edit: {
  old_text: string;
  new_text: string;
  expected_replacements?: number | null | undefined;
  replace_all?: boolean | null | undefined;
}): EditRequest {
  return {
    old_text: edit.old_text,
    new_text: edit.new_text,
    expected_replacements: edit.expected_replacements ?? undefined,
    replace_all: edit.replace_all ?? undefined,
  };
}

// Built when a toolset makes its tools, not when the module loads.
const editShape = () => ({
  old_text: z
    .string()
    .describe('Exact text to replace (curly and straight quotes are treated alike if needed)'),
  new_text: z.string(),
  expected_replacements: z
    .number()
    .int()
    .min(1)
    .nullish()
    .describe('How many occurrences to replace (default 1)'),
  replace_all: z.boolean().nullish().describe('Replace every occurrence'),
});

/** `edit_workspace_file`. */
export function editWorkspaceFileTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'edit_workspace_file',
    description:
      "Replace exact text in a workspace file you have read (read_workspace_file first; it fails with file_not_read or file_modified_since_read otherwise). old_text must match once (or expected_replacements times) unless replace_all; on no match you get nearby_candidates, on several you get matches with line numbers. Returns a unified diff. Needs the user's approval.",
    input: z.object({ path: z.string(), ...editShape() }),
    policy: { riskLevel: 'medium', sideEffects: ['workspace_edit'] },
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (input, context) => {
      if (input.old_text === '') {
        return workspaceFailure('missing_old_text', 'old_text must not be empty', {
          path: echoValue(input.path),
        });
      }
      const loaded = await loadForEdit(setup, context, input.path);
      if (!loaded.loaded) return loaded.failure;
      const { diffChars } = await loadDiff();
      const outcome = applyEdit(loaded.text, toEditRequest(input), diffChars);
      if (!outcome.ok) return { ...outcome, path: loaded.target.relative };
      const saved = await saveEdit(
        setup,
        context,
        'edit_workspace_file',
        loaded.root,
        loaded.target,
        loaded.text,
        outcome.text,
      );
      if (!saved) return escapedResult(loaded.target.relative);
      return {
        ok: true,
        path: loaded.target.relative,
        replacements: outcome.replacements,
        used_quote_normalization: outcome.used_quote_normalization,
        ...saved,
      };
    },
  });
}

/** `multi_edit_workspace_file`: several edits to one file, all or nothing. */
export function multiEditWorkspaceFileTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'multi_edit_workspace_file',
    description:
      "Apply several exact-text edits to one file you have read, in order, each seeing the result of the previous. All or nothing: if any edit fails (failed_edit_index says which), the file is not changed. Same matching rules as edit_workspace_file. Needs the user's approval.",
    input: z.object({
      path: z.string(),
      edits: z.array(z.object(editShape())).min(1).max(100),
      replace_all: z
        .boolean()
        .default(false)
        .describe('Default for edits that do not set replace_all'),
    }),
    policy: { riskLevel: 'medium', sideEffects: ['workspace_edit'] },
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (input, context) => {
      const empty = input.edits.findIndex((edit) => edit.old_text === '');
      if (empty !== -1) {
        return workspaceFailure('invalid_edit', `edit ${empty} has an empty old_text`, {
          failed_edit_index: empty,
          path: input.path,
        });
      }
      const loaded = await loadForEdit(setup, context, input.path);
      if (!loaded.loaded) return loaded.failure;
      const { diffChars } = await loadDiff();
      let text = loaded.text;
      const reports: {
        index: number;
        replacements: number;
        used_quote_normalization: boolean;
        matches: number;
      }[] = [];
      for (const [index, edit] of input.edits.entries()) {
        const outcome = applyEdit(
          text,
          toEditRequest({ ...edit, replace_all: edit.replace_all ?? input.replace_all }),
          diffChars,
        );
        if (!outcome.ok) {
          return {
            ...outcome,
            path: loaded.target.relative,
            failed_edit_index: index,
            edit_count: input.edits.length,
          };
        }
        text = outcome.text;
        reports.push({
          index,
          replacements: outcome.replacements,
          used_quote_normalization: outcome.used_quote_normalization,
          matches: outcome.matches,
        });
      }
      const saved = await saveEdit(
        setup,
        context,
        'multi_edit_workspace_file',
        loaded.root,
        loaded.target,
        loaded.text,
        text,
      );
      if (!saved) return escapedResult(loaded.target.relative);
      return {
        ok: true,
        path: loaded.target.relative,
        edit_count: input.edits.length,
        replacements: reports.reduce((sum, report) => sum + report.replacements, 0),
        edits: reports,
        ...saved,
      };
    },
  });
}
