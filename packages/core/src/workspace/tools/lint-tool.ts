import { z } from 'zod';
import { defineTool } from '../../tool/define-tool.js';
import type { Tool } from '../../tool/tool.js';
import { workspaceFailure } from '../failure.js';
import { readWorkspaceText } from '../text-file.js';
import { splitLines } from '../text-lines.js';
import { WORKSPACE_BOUNDARY, WORKSPACE_GROUP, type WorkspaceSetup } from '../workspace-setup.js';

type Language = 'python' | 'json' | 'markdown' | 'text' | 'javascript' | 'typescript';

/** One lint finding. */
export interface LintIssue {
  severity: 'error' | 'warning';
  line: number;
  column: number;
  message: string;
}

const ALIASES: Record<string, Language> = {
  py: 'python',
  python3: 'python',
  python: 'python',
  json: 'json',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  text: 'text',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  javascript: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  typescript: 'typescript',
};
const MAX_ISSUES = 20;

function languageOf(requested: string, path: string): Language {
  const explicit = ALIASES[requested.trim().toLowerCase()];
  if (explicit) return explicit;
  const extension = path.includes('.') ? path.slice(path.lastIndexOf('.') + 1).toLowerCase() : '';
  return ALIASES[extension] ?? 'text';
}

/** Line and column (1-based) of a character offset. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

function textIssues(text: string): LintIssue[] {
  const issues: LintIssue[] = [];
  for (const [index, line] of splitLines(text).entries()) {
    const nul = line.indexOf('\0');
    if (nul !== -1)
      issues.push({
        severity: 'error',
        line: index + 1,
        column: nul + 1,
        message: 'NUL byte in text',
      });
    if (/[ \t]+$/.test(line))
      issues.push({
        severity: 'warning',
        line: index + 1,
        column: line.length,
        message: 'trailing whitespace',
      });
    if (issues.length >= MAX_ISSUES) break;
  }
  return issues.slice(0, MAX_ISSUES);
}

function jsonIssues(text: string): LintIssue[] {
  try {
    JSON.parse(text);
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = /position (\d+)/.exec(message);
    const where = offset ? position(text, Number(offset[1])) : { line: 1, column: 1 };
    return [{ severity: 'error', ...where, message }];
  }
}

async function javascriptIssues(text: string): Promise<LintIssue[]> {
  const { parse } = await import('acorn');
  const attempt = (sourceType: 'module' | 'script'): LintIssue | undefined => {
    try {
      parse(text, { ecmaVersion: 'latest', sourceType, allowHashBang: true, locations: true });
      return undefined;
    } catch (error) {
      const located = error as { loc?: { line: number; column: number }; message?: string };
      return {
        severity: 'error',
        line: located.loc?.line ?? 1,
        column: (located.loc?.column ?? 0) + 1,
        message: String(located.message ?? error).replace(/ \(\d+:\d+\)$/, ''),
      };
    }
  };
  const asModule = attempt('module');
  if (!asModule) return [];
  return attempt('script') ? [asModule] : [];
}

async function typescriptIssues(text: string, fileName: string): Promise<LintIssue[] | undefined> {
  let ts: typeof import('typescript');
  try {
    ts =
      ((await import('typescript')) as { default?: typeof import('typescript') }).default ??
      (await import('typescript'));
  } catch {
    return undefined;
  }
  const jsx = fileName.endsWith('x');
  const source = ts.createSourceFile(
    jsx ? 'file.tsx' : 'file.ts',
    text,
    ts.ScriptTarget.Latest,
    true,
    jsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const diagnostics =
    (source as unknown as { parseDiagnostics?: import('typescript').Diagnostic[] })
      .parseDiagnostics ?? [];
  return diagnostics.slice(0, MAX_ISSUES).map((diagnostic) => {
    const where = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return {
      severity: 'error',
      line: where.line + 1,
      column: where.character + 1,
      message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
    };
  });
}

const PYTHON_CHECK =
  'import ast,json,sys\nsrc=sys.stdin.read()\ntry:\n ast.parse(src)\n print(json.dumps([]))\nexcept SyntaxError as e:\n print(json.dumps([{"line":e.lineno or 1,"column":e.offset or 1,"message":e.msg}]))\n';

async function pythonIssues(text: string): Promise<LintIssue[] | undefined> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn('python3', ['-I', '-c', PYTHON_CHECK], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { PATH: process.env['PATH'] ?? '', PYTHONIOENCODING: 'utf-8' },
    });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      try {
        const found = JSON.parse(out) as { line: number; column: number; message: string }[];
        resolve(
          code === 0 ? found.map((issue) => ({ severity: 'error' as const, ...issue })) : undefined,
        );
      } catch {
        resolve(undefined);
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}

/** `lint_workspace_file`. */
export function lintWorkspaceFileTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'lint_workspace_file',
    description:
      'Check a workspace file for problems: JSON parse errors; JavaScript and TypeScript syntax errors; Python syntax errors (needs python3 on the host); and for every file NUL bytes and trailing whitespace. Not a style linter. ok is false when an error was found, or when the syntax check for the language could not run (error_type syntax_check_unavailable).',
    input: z.object({
      path: z.string(),
      language: z
        .string()
        .default('auto')
        .describe(
          'auto (from the extension), python, json, markdown, text, javascript, typescript',
        ),
    }),
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (input, context) => {
      const root = await setup.rootFor(context.invocation);
      const opened = await readWorkspaceText(root, input.path);
      if (!('file' in opened)) return opened;
      const { target, file } = opened;
      const language = languageOf(input.language, target.relative);
      const issues = textIssues(file.text);
      let syntax: LintIssue[] | undefined = [];
      if (language === 'json') syntax = jsonIssues(file.text);
      else if (language === 'javascript') syntax = await javascriptIssues(file.text);
      else if (language === 'typescript')
        syntax = await typescriptIssues(file.text, target.relative);
      else if (language === 'python') syntax = await pythonIssues(file.text);
      const base = { path: target.relative, language, lint_model: 'built_in_lightweight' };
      if (syntax === undefined) {
        return workspaceFailure(
          'syntax_check_unavailable',
          language === 'python'
            ? 'Python syntax check unavailable: python3 was not found on the host.'
            : 'TypeScript syntax check unavailable: install the typescript package.',
          { ...base, syntax_checked: false, issues: issues.slice(0, MAX_ISSUES) },
        );
      }
      const all = [...syntax, ...issues].slice(0, MAX_ISSUES);
      return {
        ok: !all.some((issue) => issue.severity === 'error'),
        ...base,
        syntax_checked: true,
        issues: all,
      };
    },
  });
}
