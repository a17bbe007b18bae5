import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservePrivateDirectories, SANDBOX_ROOT_PREFIX } from './private-dirs.js';
import { isReserved } from './reserved-dirs.js';

let base: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'ksadk-private-dirs-')));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('reservePrivateDirectories', () => {
  it('reserves every private folder the configuration implies, before any exists', () => {
    const project = path.join(base, 'project');
    reservePrivateDirectories({
      KSADK_PROJECT_DIR: project,
      KSADK_SKILL_CACHE_DIR: path.join(base, 'cache'),
    });
    for (const inside of [
      '.agentengine/ui/tool-results/alice/s1/call.txt',
      '.agentengine/memory/alice.jsonl',
      '.agentengine/ui/skill-runs/alice/s1/run-1',
    ])
      expect(isReserved(path.join(project, inside)), inside).toBe(true);
    expect(isReserved(path.join(base, 'cache', 'entry'))).toBe(true);
    expect(isReserved(path.join(project, 'src', 'app.ts'))).toBe(false);
    expect(isReserved(path.join(os.tmpdir(), `${SANDBOX_ROOT_PREFIX}Ab12Cd`, 'x'))).toBe(true);
    // Only the names private roots get: a folder of the user's that merely starts alike is not.
    expect(isReserved(path.join(os.tmpdir(), `${SANDBOX_ROOT_PREFIX}my-project`, 'x'))).toBe(false);
  });

  it('a project folder reached through a link: the real paths are reserved before the folders exist', async () => {
    const real = path.join(base, 'releases', '123');
    await mkdir(real, { recursive: true });
    const current = path.join(base, 'current');
    await symlink(real, current);
    reservePrivateDirectories({ KSADK_PROJECT_DIR: current });
    // The workspace compares real paths: the store another process creates later is covered.
    expect(isReserved(path.join(real, '.agentengine', 'ui', 'tool-results', 'alice'))).toBe(true);
    expect(isReserved(path.join(real, 'README.md'))).toBe(false);
  });
});
