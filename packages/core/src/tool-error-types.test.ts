import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { A2A_ERROR_TYPES } from './a2a/error-types.js';
import { CATALOG_ERROR_TYPES } from './catalog/error-types.js';
import { GATEWAY_ERROR_TYPES } from './gateway/tool-error-types.js';
import { MCP_ERROR_TYPES } from './mcp/error-types.js';
import { MEMORY_ERROR_TYPES } from './memory/error-types.js';
import { SANDBOX_ERROR_TYPES } from './sandbox/error-types.js';
import { SKILLS_ERROR_TYPES } from './skills/error-types.js';
import { TOOL_ERROR_TYPES } from './tool-error-types.js';
import { WEB_ERROR_TYPES } from './web/error-types.js';
import { WORKSPACE_ERROR_TYPES } from './workspace/error-types.js';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

const TABLES: Record<string, Readonly<Record<string, string>>> = {
  gateway: GATEWAY_ERROR_TYPES,
  catalog: CATALOG_ERROR_TYPES,
  workspace: WORKSPACE_ERROR_TYPES,
  mcp: MCP_ERROR_TYPES,
  a2a: A2A_ERROR_TYPES,
  memory: MEMORY_ERROR_TYPES,
  skills: SKILLS_ERROR_TYPES,
  sandbox: SANDBOX_ERROR_TYPES,
  web: WEB_ERROR_TYPES,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sources(full);
    return name.endsWith('.ts') && !name.includes('.test') ? [full] : [];
  });
}

/** The object literal around `index`: from its unmatched `{` to the matching `}`. */
function enclosingObject(text: string, index: number): string {
  let start = index;
  for (let depth = 0; start > 0; start -= 1) {
    const char = text[start - 1];
    if (char === '}') depth += 1;
    if (char === '{') {
      if (depth === 0) break;
      depth -= 1;
    }
  }
  let end = index;
  for (let depth = 0; end < text.length; end += 1) {
    const char = text[end];
    if (char === '{') depth += 1;
    if (char === '}') {
      if (depth === 0) break;
      depth -= 1;
    }
  }
  return text.slice(start, end);
}

describe('error types', () => {
  it('each type is owned by one table, and TOOL_ERROR_TYPES is their union', () => {
    const owners = new Map<string, string[]>();
    const merged: Record<string, string> = {};
    for (const [name, table] of Object.entries(TABLES)) {
      for (const [type, hint] of Object.entries(table)) {
        owners.set(type, [...(owners.get(type) ?? []), name]);
        merged[type] = hint;
      }
    }
    expect([...owners].filter(([, names]) => names.length > 1)).toEqual([]);
    expect(TOOL_ERROR_TYPES).toEqual(merged);
  });

  it('docs/tools.md lists exactly TOOL_ERROR_TYPES, each with its retry hint', () => {
    const docs = readFileSync(path.join(repo, 'docs', 'tools.md'), 'utf8');
    const HINTS: Record<string, string> = {
      'as is': 'retry',
      'after fixing the call': 'fix',
      no: 'no',
    };
    const documented: Record<string, string | undefined> = {};
    for (const match of docs.matchAll(/^\| `([a-z0-9_]+)`\s*\|[^|]*\|\s*([^|]*?)\s*\|$/gm))
      if (match[1] !== 'error_type') documented[match[1]!] = HINTS[match[2]!] ?? match[2]!;
    expect(documented).toEqual(TOOL_ERROR_TYPES);
  });

  it('no source file builds a failure by hand: `ok: false` with an error type or message goes through a constructor', () => {
    const handMade: string[] = [];
    for (const pkg of readdirSync(path.join(repo, 'packages'))) {
      for (const file of sources(path.join(repo, 'packages', pkg, 'src'))) {
        const relative = path.relative(repo, file);
        if (relative === path.join('packages', 'core', 'src', 'gateway', 'results.ts')) continue;
        const text = readFileSync(file, 'utf8');
        // `ok: false,` or `ok: false }` in a value; `ok: false;` declares a type.
        for (const match of text.matchAll(/\bok:\s*false(?:\s+as\s+const)?\s*[,}\n]/g)) {
          const line = text.slice(text.lastIndexOf('\n', match.index) + 1, match.index).trim();
          if (line.startsWith('*') || line.startsWith('//')) continue;
          const object = enclosingObject(text, match.index);
          if (/\berror_(?:type|message)\b/.test(object))
            handMade.push(`${relative}:${text.slice(0, match.index).split('\n').length}`);
        }
      }
    }
    expect(handMade).toEqual([]);
  });
});
