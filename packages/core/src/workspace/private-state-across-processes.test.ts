import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('./test-fixtures/private-state-process.ts', import.meta.url));
// The children run from a folder of their own (their default state goes there, not into the
// repository), so the TypeScript loader is named by its full path.
const TSX = pathToFileURL(
  path.join(
    path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')),
    'dist/loader.mjs',
  ),
).href;

let project: string;
let elsewhere: string;
beforeAll(async () => {
  project = await mkdtemp(path.join(os.tmpdir(), 'ksadk-private-state-'));
  elsewhere = await mkdtemp(path.join(os.tmpdir(), 'ksadk-private-state-cwd-'));
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(elsewhere, { recursive: true, force: true });
});

const child = async (mode: 'save' | 'look'): Promise<Record<string, unknown>> => {
  const { stdout } = await run(process.execPath, ['--import', TSX, FIXTURE, mode, project], {
    timeout: 60_000,
    cwd: elsewhere,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: os.tmpdir() },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
};

describe('a fresh process never shows one account the private state another left', () => {
  it("bob's workspace tools and sandbox commands in a new process see none of alice's saved results", {
    timeout: 120_000,
  }, async () => {
    expect(await child('save')).toEqual({ persisted: true });
    // Alice's result is on disk, inside the folder bob's workspace is.
    expect(
      await readdir(path.join(project, '.agentengine', 'ui', 'tool-results', 'alice', '_', 's1')),
    ).toHaveLength(1);
    const seen = await child('look');
    const text = JSON.stringify(seen);
    // The command bob ran names the marker; the saved text itself never shows.
    expect(text).not.toContain('x'.repeat(50));
    expect(JSON.stringify(seen['listed'])).not.toContain('tool-results');
    expect(seen['read']).toMatchObject({ ok: false });
    expect(seen['searched']).toMatchObject({ ok: true });
    expect(JSON.stringify(seen['searched'])).not.toContain('call_alice_1');
    expect(seen['grep']).toMatchObject({ ok: true });
    expect(JSON.stringify(seen['grep'])).not.toContain('call_alice_1');
    expect(JSON.stringify(seen['grep'])).not.toContain('tool-results');
  });
});
