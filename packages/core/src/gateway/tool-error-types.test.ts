import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOOL_ERROR_TYPES } from './tool-error-types.js';

const repo = fileURLToPath(new URL('../../../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sources(full);
    return name.endsWith('.ts') && !name.includes('.test') ? [full] : [];
  });
}

describe('error types', () => {
  it('every error_type the packages return is in TOOL_ERROR_TYPES, and every one is documented', () => {
    const used = new Set<string>();
    for (const pkg of readdirSync(path.join(repo, 'packages'))) {
      for (const file of sources(path.join(repo, 'packages', pkg, 'src'))) {
        const text = readFileSync(file, 'utf8');
        // `error_type: 'x'` and `error_type: condition ? 'x' : 'y'`
        for (const match of text.matchAll(/error_type:\s*([^\n]*)/g)) {
          for (const literal of match[1]!.matchAll(/(?:^|[?:]\s*)'([a-z0-9_]+)'/g))
            used.add(literal[1]!);
        }
        for (const match of text.matchAll(/new KsadkError\(\s*'([a-z_]+)'/g)) used.add(match[1]!);
        // Skill Service and package errors carry their type as the first argument (maybe a ternary).
        for (const match of text.matchAll(/new SkillServiceError\(\s*([^,]*),/g))
          for (const literal of match[1]!.matchAll(/'([a-z0-9_]+)'/g)) used.add(literal[1]!);
        // Sandbox command results: `failedCommand('x', …)`, `['x', message]`, `{ type: 'x', … }`.
        for (const match of text.matchAll(/(?:failedCommand|toolError|reject)\(\s*'([a-z_]+)'/g))
          used.add(match[1]!);
        for (const match of text.matchAll(/return \['([a-z_]+)',/g)) used.add(match[1]!);
        for (const match of text.matchAll(/\{ type: '([a-z_]+)', message/g)) used.add(match[1]!);
      }
    }
    // `a2a_task_${state}` for the ended states.
    for (const state of ['failed', 'canceled', 'rejected']) used.add(`a2a_task_${state}`);
    used.delete('a2a_task_');
    const listed = new Set(Object.keys(TOOL_ERROR_TYPES));
    expect([...used].filter((type) => !listed.has(type)).sort()).toEqual([]);
    const docs = readFileSync(path.join(repo, 'docs', 'tools.md'), 'utf8');
    const documented = new Set([...docs.matchAll(/^\| `([a-z0-9_]+)`\s*\|/gm)].map((m) => m[1]!));
    expect([...listed].filter((type) => !documented.has(type)).sort()).toEqual([]);
  });
});
