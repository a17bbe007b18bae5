import { z } from 'zod';
import { budgetTextFields, narrowBudget } from '../../budget/result-budget.js';
import { isResultHandle } from '../../budget/result-store.js';
import { defineTool } from '../../tool/define-tool.js';
import type { Tool } from '../../tool/tool.js';
import { workspaceFailure } from '../failure.js';
import { readPersistedText, readWorkspaceText } from '../text-file.js';
import { splitLines } from '../text-lines.js';
import { globFilter, walkWorkspace } from '../walk.js';
import { isPathError, resolveWorkspacePath } from '../workspace-paths.js';
import { WORKSPACE_BOUNDARY, WORKSPACE_GROUP, type WorkspaceSetup } from '../workspace-setup.js';

/** `workspace_status`: a quick look at what the workspace holds. */
export function workspaceStatusTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'workspace_status',
    description:
      'Summarise the workspace: how many files it holds and the first 50 paths with sizes. Use it to orient yourself before reading or editing. Paths are relative to the workspace root; nothing outside it is visible.',
    input: z.object({}),
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (_input, context) => {
      const root = await setup.rootFor(context.invocation);
      const walk = await walkWorkspace(root, root, { recursive: true, signal: context.signal });
      const files = walk.entries
        .filter((entry) => entry.type === 'file')
        .sort((a, b) => (a.path < b.path ? -1 : 1));
      return {
        ok: true,
        workspace_root: '.',
        file_count: files.length,
        file_count_sampled: Math.min(files.length, 50),
        files: files.slice(0, 50).map((file) => ({ path: file.path, size: file.size })),
        truncated: walk.truncated || files.length > 50,
        ...(walk.skipped.length > 0 ? { skipped: walk.skipped } : {}),
      };
    },
  });
}

/** `list_workspace_files`. */
export function listWorkspaceFilesTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'list_workspace_files',
    description:
      'List files and directories in the workspace. Defaults to the direct children of the root; set recursive for the whole tree. glob (like *.py or src/*.ts) filters by relative path or file name. Symlinks are listed but not followed; ones that lead outside the workspace are left out and reported under skipped. At most 5000 entries.',
    input: z.object({
      path: z.string().default('.').describe('Directory or file, relative to the workspace root'),
      glob: z.string().nullish().describe('Only entries whose path or name matches'),
      recursive: z.boolean().default(false),
      include_dirs: z.boolean().default(true),
      max_results: z.number().int().min(1).max(5000).default(500),
      sort_by: z.enum(['name', 'mtime', 'size']).default('name'),
    }),
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (input, context) => {
      const root = await setup.rootFor(context.invocation);
      const target = await resolveWorkspacePath(root, input.path, { mustExist: true });
      if (isPathError(target)) return target;
      const matches = await globFilter(input.glob);
      if (typeof matches !== 'function') return matches;
      const walk =
        target.kind === 'directory'
          ? await walkWorkspace(root, target.absolute, {
              recursive: input.recursive,
              signal: context.signal,
            })
          : undefined;
      const candidates = walk?.entries ?? [];
      if (!walk) {
        const { stat } = await import('node:fs/promises');
        const stats = await stat(target.absolute, { bigint: true });
        candidates.push({
          path: target.relative,
          name: target.relative.split('/').pop()!,
          absolute: target.absolute,
          type: 'file',
          size: Number(stats.size),
          mtimeNs: stats.mtimeNs,
        });
      }
      const entries = candidates.filter(
        (entry) => (input.include_dirs || entry.type !== 'directory') && matches(entry),
      );
      const byName = (a: (typeof entries)[number], b: (typeof entries)[number]): number =>
        a.path.toLowerCase() < b.path.toLowerCase()
          ? -1
          : a.path.toLowerCase() > b.path.toLowerCase()
            ? 1
            : 0;
      entries.sort(
        input.sort_by === 'mtime'
          ? (a, b) => (a.mtimeNs === b.mtimeNs ? byName(a, b) : a.mtimeNs < b.mtimeNs ? -1 : 1)
          : input.sort_by === 'size'
            ? (a, b) => a.size - b.size || byName(a, b)
            : byName,
      );
      return {
        ok: true,
        path: input.path,
        recursive: input.recursive,
        entries: entries.slice(0, input.max_results).map((entry) => ({
          name: entry.name,
          path: entry.path,
          type: entry.type,
          size: entry.size,
          mtime_ns: Number(entry.mtimeNs),
        })),
        truncated: entries.length > input.max_results || Boolean(walk?.truncated),
        ...(walk && walk.skipped.length > 0 ? { skipped: walk.skipped } : {}),
      };
    },
  });
}

/** `read_workspace_file`. */
export function readWorkspaceFileTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'read_workspace_file',
    description:
      'Read a UTF-8 text file from the workspace, whole or a line range, with line numbers ("12 | text") by default. Read a file before editing it. Files over 2 MB and non-UTF-8 files are refused; long content is cut to max_chars (1000–100000, default 20000): read further with start_line/end_line. Also reads back a saved tool output: pass its tool-results://… handle (from persisted_outputs) as path.',
    input: z.object({
      path: z
        .string()
        .describe('File path relative to the workspace root, or a tool-results://… handle'),
      start_line: z.number().int().min(1).nullish().describe('First line, 1-based'),
      end_line: z.number().int().min(1).nullish().describe('Last line, inclusive'),
      max_chars: z
        .number()
        .int()
        .min(1)
        .nullish()
        .describe('Inline character budget (1000–100000)'),
      include_line_numbers: z.boolean().default(true),
    }),
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (input, context) => {
      const handle = isResultHandle(input.path);
      const opened = handle
        ? await readPersistedText(input.path, context.gateway.budget, context.invocation)
        : await readWorkspaceText(await setup.rootFor(context.invocation), input.path);
      if (!('file' in opened)) return opened;
      const { target, file } = opened;
      const lines = splitLines(file.text);
      const total = lines.length;
      const start = Math.max(1, input.start_line ?? 1);
      const end = Math.min(total, input.end_line ?? total);
      if (end > 0 && start > end) {
        return workspaceFailure('invalid_range', 'start_line must be <= end_line', {
          path: target.relative,
        });
      }
      const selected = lines.slice(start - 1, end);
      const content = input.include_line_numbers
        ? selected.map((line, index) => `${start + index} | ${line}`).join('\n')
        : selected.join('\n');
      const limit = Math.min(100_000, Math.max(1_000, input.max_chars ?? 20_000));
      const budgeted = await budgetTextFields({ content }, 'read_workspace_file', ['content'], {
        budget: narrowBudget(context.gateway.budget, {
          maxChars: limit,
          previewChars: limit,
        }),
        metadata: { toolCallId: context.callId },
        context: context.invocation,
        // The file is already readable by range: saving another copy of it would only fill the disk.
        persist: false,
      });
      const partial = start !== 1 || end !== total || Boolean(budgeted['content_truncated']);
      if (!handle) {
        const { account, session } = setup.keyOf(context.invocation);
        setup.readState.set(account, session, target.relative, {
          mtimeNs: file.mtimeNs,
          sizeBytes: file.sizeBytes,
          startLine: start,
          endLine: end,
          totalLines: total,
          partial,
        });
      }
      return {
        ok: true,
        path: target.relative,
        size: file.sizeBytes,
        size_bytes: file.sizeBytes,
        mtime_ns: Number(file.mtimeNs),
        start_line: total === 0 ? 0 : start,
        end_line: end,
        line_count: selected.length,
        read_range: { start: total === 0 ? 0 : start, end },
        total_lines: total,
        partial,
        suggested_action: budgeted['content_truncated']
          ? `Content was cut at ${limit} characters; read the rest with start_line/end_line.`
          : '',
        content: budgeted['content'],
        truncated: budgeted['content_truncated'],
        original_chars: budgeted['content_original_chars'],
        preview_chars: budgeted['content_preview_chars'],
        ...(budgeted['persisted_outputs']
          ? { persisted_outputs: budgeted['persisted_outputs'] }
          : {}),
      };
    },
  });
}
