import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory())
      return name === 'node_modules' || name === 'dist' ? [] : sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('docs/configuration.md', () => {
  it('documents every KSADK_* variable the packages read, and no variable they do not', () => {
    const used = new Set<string>();
    for (const pkg of readdirSync(path.join(repo, 'packages'))) {
      const src = path.join(repo, 'packages', pkg, 'src');
      for (const file of sourceFiles(src)) {
        for (const match of readFileSync(file, 'utf8').matchAll(/\bKSADK_[A-Z0-9_]+\b/g))
          used.add(match[0]);
      }
    }
    const docs = readFileSync(path.join(repo, 'docs', 'configuration.md'), 'utf8');
    const documented = new Set(docs.match(/\bKSADK_[A-Z0-9_]+\b/g) ?? []);
    expect([...used].filter((name) => !documented.has(name)).sort()).toEqual([]);
    expect([...documented].filter((name) => !used.has(name)).sort()).toEqual([]);
  });
});
