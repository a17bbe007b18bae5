import { mkdtemp, readdir, rm, stat, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budgetToolOutput, resolveResultBudget } from './result-budget.js';
import { readPersistedOutput, resolveResultHandle, sessionResultDir } from './result-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-store-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const context = { accountId: 'acme', sessionId: 's1' };

describe('the persisted-output store', () => {
  it('keeps folders 0700 and files 0600', async () => {
    const budget = resolveResultBudget({ maxChars: 10, persistDir: path.join(dir, 'results') });
    const out = await budgetToolOutput('t', 'text', 'x'.repeat(100), { budget, context });
    const file = (await resolveResultHandle(out.persisted!.path, budget, context))!;
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect((await stat(path.dirname(path.dirname(file)))).mode & 0o777).toBe(0o700);
  });

  it('keeps at most the per-session file count and bytes, oldest removed first', async () => {
    const budget = resolveResultBudget({
      maxChars: 10,
      persistDir: dir,
      retention: { maxFilesPerSession: 5, maxBytesPerSession: 10_000 },
    });
    const handles: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      const out = await budgetToolOutput('t', 'text', `${index}`.padEnd(100, '.'), {
        budget,
        context,
        metadata: { toolCallId: `call_${index}` },
      });
      handles.push(out.persisted!.path);
    }
    const kept = await readdir(sessionResultDir(dir, context));
    expect(kept.sort()).toEqual(
      ['call_10', 'call_11', 'call_7', 'call_8', 'call_9'].map((id) => `${id}.text.txt`),
    );
    // 100 reads' worth of one 2 MiB output cannot pile up either: bytes are capped per session.
    const big = resolveResultBudget({
      maxChars: 10,
      persistDir: path.join(dir, 'big'),
      retention: { maxBytesPerSession: 5 * 1024 * 1024 },
    });
    for (let index = 0; index < 10; index += 1) {
      await budgetToolOutput('t', 'text', 'z'.repeat(2 * 1024 * 1024), { budget: big, context });
    }
    const folder = sessionResultDir(path.join(dir, 'big'), context);
    let bytes = 0;
    for (const name of await readdir(folder)) bytes += (await stat(path.join(folder, name))).size;
    expect(bytes).toBeLessThanOrEqual(5 * 1024 * 1024);
  });

  it('removes files past the age limit', async () => {
    const budget = resolveResultBudget({
      maxChars: 10,
      persistDir: dir,
      retention: { maxAgeMs: 60_000 },
    });
    const old = await budgetToolOutput('t', 'text', 'o'.repeat(50), { budget, context });
    const oldFile = (await resolveResultHandle(old.persisted!.path, budget, context))!;
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(oldFile, hourAgo, hourAgo);
    await budgetToolOutput('t', 'text', 'n'.repeat(50), { budget, context });
    await expect(stat(oldFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never writes through a symlink planted at the target name', async () => {
    const budget = resolveResultBudget({ maxChars: 10, persistDir: dir });
    const folder = sessionResultDir(dir, context);
    await budgetToolOutput('t', 'x', 'first'.repeat(10), {
      budget,
      context,
      metadata: { id: 'warm' },
    });
    const outside = path.join(dir, 'outside.txt');
    await symlink(outside, path.join(folder, 'call_s.text.txt'));
    const out = await budgetToolOutput('t', 'text', 'y'.repeat(50), {
      budget,
      context,
      metadata: { toolCallId: 'call_s' },
    });
    expect(out.persisted!.path).not.toBe('tool-results://call_s.text.txt');
    await expect(stat(outside)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('two users of one account — in one session, or with none — never read each other’s outputs', async () => {
    const budget = resolveResultBudget({ persistDir: dir });
    for (const sessionId of ['shared', undefined]) {
      const alice = { accountId: 'acme', userId: 'alice', ...(sessionId ? { sessionId } : {}) };
      const bob = { accountId: 'acme', userId: 'bob', ...(sessionId ? { sessionId } : {}) };
      const out = await budgetToolOutput('t', 'text', 'secret plans '.repeat(10_000), {
        budget,
        context: alice,
        metadata: { callId: 'call_users' },
      });
      const handle = out.persisted!.path;
      expect(await readPersistedOutput(handle, budget, alice)).toBeDefined();
      expect(await readPersistedOutput(handle, budget, bob)).toBeUndefined();
      const accountOnly = { accountId: 'acme', ...(sessionId ? { sessionId } : {}) };
      expect(await readPersistedOutput(handle, budget, accountOnly)).toBeUndefined();
    }
  });

  it('resolves a handle only inside the caller’s own folder', async () => {
    const budget = resolveResultBudget({ persistDir: dir });
    await budgetToolOutput('t', 'text', 'x'.repeat(100_000), { budget, context });
    const mine = await resolveResultHandle('tool-results://call_1.text.txt', budget, context);
    // `<account>/<user>/<session>`: a caller without a user is in the `_` user folder.
    expect(mine).toBe(path.join(dir, 'acme', '_', 's1', 'call_1.text.txt'));
    for (const forged of [
      'tool-results://../s2/call_1.text.txt',
      'tool-results://..',
      'tool-results://.hidden',
      'tool-results://a/b',
      'tool-results://a\\b',
      'tool-results://',
      'call_1.text.txt',
    ]) {
      expect(await resolveResultHandle(forged, budget, context), forged).toBeUndefined();
    }
  });
});
