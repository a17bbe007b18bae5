import { z } from 'zod';
import { budgetToolOutput } from '../../budget/result-budget.js';
import { defineTool } from '../../tool/define-tool.js';
import type { Tool } from '../../tool/tool.js';
import { echoValue } from '../../util/sanitize-message.js';
import { workspaceFailure } from '../failure.js';
import { MAX_QUERY_CHARS } from '../search/query-limits.js';
import { globFilter } from '../walk.js';
import { isPathError, resolveWorkspacePath } from '../workspace-paths.js';
import { WORKSPACE_BOUNDARY, WORKSPACE_GROUP, type WorkspaceSetup } from '../workspace-setup.js';

/** `search_workspace_files`. */
export function searchWorkspaceFilesTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'search_workspace_files',
    description:
      'Search text in workspace files, line by line: a literal string by default, or a regular expression (RE2 syntax: no look-around or back-references) with is_regex. Case-insensitive unless case_sensitive. glob (like *.py) limits which files; context_lines (0–20) adds surrounding lines. Files over 1 MB, binary and non-UTF-8 files are skipped; symlinks are never followed. Queries up to 1000 characters; overly complex patterns are refused (regex_too_complex). Results are in path and line order, at most max_results (1–5000, default 100).',
    input: z.object({
      query: z.string().max(MAX_QUERY_CHARS).describe('Text or pattern to find'),
      path: z
        .string()
        .default('.')
        .describe('Directory or file to search, relative to the workspace root'),
      is_regex: z.boolean().default(false),
      glob: z.string().nullish(),
      case_sensitive: z.boolean().default(false),
      context_lines: z.number().int().min(0).max(20).default(0),
      max_results: z.number().int().min(1).max(5000).default(100),
    }),
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (input, context) => {
      if (input.query === '') return workspaceFailure('query_required', 'query is required');
      // The search (ripgrep, or the RE2 worker) loads with the first one.
      const { compileQuery, searchWorkspace } = await import('../search/search-files.js');
      const compiled = await compileQuery(input.query, input.is_regex, input.case_sensitive);
      if ('ok' in compiled) return compiled;
      const matchesGlob = await globFilter(input.glob);
      if (typeof matchesGlob !== 'function') return matchesGlob;
      const root = await setup.rootFor(context.invocation);
      const base = await resolveWorkspacePath(root, input.path, { mustExist: true });
      if (isPathError(base)) return base;
      if (base.kind !== 'file' && base.kind !== 'directory') {
        return workspaceFailure('invalid_path', `${echoValue(input.path)} cannot be searched`, {
          path: echoValue(input.path),
        });
      }
      const outcome = await searchWorkspace(
        {
          root,
          base: { relative: base.relative, absolute: base.absolute, kind: base.kind },
          query: input.query,
          isRegex: input.is_regex,
          matchesGlob,
          caseSensitive: input.case_sensitive,
          contextLines: input.context_lines,
          maxResults: input.max_results,
          useRipgrep: setup.useRipgrep,
          signal: context.signal,
        },
        compiled,
      );
      if (!('results' in outcome)) return outcome;
      const payload: Record<string, unknown> = {
        ok: true,
        query: input.query,
        searched_path: base.relative,
        results: outcome.results,
        match_count: outcome.results.length,
        truncated: outcome.truncated,
        context_lines: input.context_lines,
        search_backend: outcome.backend,
        ...(outcome.timedOut ? { timed_out: true } : {}),
      };
      // A large result list is saved whole and trimmed inline to what fits the budget.
      const budget = context.gateway.budget;
      if (JSON.stringify(outcome.results).length <= budget.maxChars) return payload;
      const persisted = await budgetToolOutput(
        'search_workspace_files',
        'results',
        outcome.results,
        {
          budget,
          metadata: { toolCallId: context.callId },
          context: context.invocation,
        },
      );
      const inline = [];
      let used = 2;
      for (const result of outcome.results) {
        used += JSON.stringify(result).length + 1;
        if (used > budget.previewChars) break;
        inline.push(result);
      }
      return {
        ...payload,
        results: inline,
        results_truncated: true,
        results_original_count: outcome.results.length,
        ...(persisted.persisted ? { persisted_outputs: { results: persisted.persisted } } : {}),
        // A store that could not save says so, as for every budgeted result.
        ...(persisted.persist_error
          ? { persist_errors: { results: persisted.persist_error } }
          : {}),
      };
    },
  });
}
