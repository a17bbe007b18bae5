import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES } from './util/variables.js';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory())
      return name === 'node_modules' || name === 'dist' ? [] : sourceFiles(full);
    return (name.endsWith('.ts') && !name.endsWith('.test.ts')) || name.endsWith('.mjs')
      ? [full]
      : [];
  });
}

describe('docs/configuration.md', () => {
  it('documents every KSADK_* variable of the one table, which holds exactly what the packages read', () => {
    const used = new Set<string>();
    for (const pkg of readdirSync(path.join(repo, 'packages'))) {
      const dirs = ['src', 'bin']
        .map((dir) => path.join(repo, 'packages', pkg, dir))
        .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory());
      if (pkg === 'core') dirs.push(path.join(repo, 'scripts'));
      for (const file of dirs.flatMap(sourceFiles)) {
        // A name ending in `_` is a prefix (`KSADK_SAFE_*`), not a variable.
        for (const match of readFileSync(file, 'utf8').matchAll(/\bKSADK_[A-Z0-9_]+\b/g))
          if (!match[0].endsWith('_')) used.add(match[0]);
      }
    }
    const docs = readFileSync(path.join(repo, 'docs', 'configuration.md'), 'utf8');
    const documented = new Set(
      (docs.match(/\bKSADK_[A-Z0-9_]+\b/g) ?? []).filter((name) => !name.endsWith('_')),
    );
    const table = new Set<string>(Object.values(ENV_VARIABLES).flat());
    expect(table.size).toBe(Object.values(ENV_VARIABLES).flat().length);
    // The table is the one list: the code reads only its names, and the docs document exactly it.
    expect([...used].filter((name) => !table.has(name)).sort()).toEqual([]);
    expect([...table].filter((name) => !used.has(name)).sort()).toEqual([]);
    expect([...table].filter((name) => !documented.has(name)).sort()).toEqual([]);
    expect([...documented].filter((name) => !table.has(name)).sort()).toEqual([]);
  });
});
