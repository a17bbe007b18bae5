import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestWorkspace } from './test-fixtures/workspace-test-kit.js';

let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
beforeEach(async () => {
  ws = await createTestWorkspace({ useRipgrep: false });
  await ws.call('workspace_status', {});
  await mkdir(ws.outside, { recursive: true });
});
afterEach(() => ws.cleanup());

/** Every entry under `dir`, recursively, relative to it. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    out.push(path.relative(dir, path.join(entry.parentPath, entry.name)));
  }
  return out.sort();
}

// A second process swaps `root/sub` for a symlink to the outside folder and back, as fast as it can.
const SWAPPER = `
const fs = require('node:fs');
const [root, outside, ms] = process.argv.slice(1);
const started = Date.now();
const end = started + Number(ms);
const pause = new Int32Array(new SharedArrayBuffer(4));
let swaps = 0;
let strays = 0;
// Each state (real directory, symlink to outside) holds for a fraction of a millisecond.
const hold = (i) => Atomics.wait(pause, 0, 0, (i % 3) * 0.3);
// Puts the real directory back. A write that lands while neither "sub" exists creates a fresh
// "sub" directory (its parents are made on demand); without moving that aside (inside the root)
// every later swap would fail and the race would stop being one.
const restore = () => {
  try { fs.unlinkSync(root + '/sub'); } catch {}
  try { fs.renameSync(root + '/sub.real', root + '/sub'); return; } catch {}
  if (!fs.existsSync(root + '/sub.real')) return;
  try { fs.renameSync(root + '/sub', root + '/stray-' + strays++); fs.renameSync(root + '/sub.real', root + '/sub'); } catch {}
};
// At least the given time, and on a loaded machine longer (up to 5x), until 300 swaps were made.
while (Date.now() < end || (swaps < 300 && Date.now() < started + 5 * Number(ms))) {
  try { fs.renameSync(root + '/sub', root + '/sub.real'); fs.symlinkSync(outside, root + '/sub'); swaps++; } catch {}
  hold(swaps);
  restore();
  hold(swaps + 1);
}
restore();
process.stdout.write(JSON.stringify({ swaps, strays }));
`;

describe('writes racing a directory swap stay inside the root', () => {
  it('a swapper process for 3 s: zero files outside, zero temporaries left', async () => {
    await mkdir(path.join(ws.root, 'sub'));
    await writeFile(path.join(ws.root, 'sub', 'edit.txt'), 'line one\n');
    const before = await tree(ws.outside);
    const swapper = spawn(process.execPath, ['-e', SWAPPER, ws.root, ws.outside, '3000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let swaps = '';
    swapper.stdout.on('data', (chunk) => {
      swaps += String(chunk);
    });
    const exited = new Promise<void>((resolve) => swapper.once('exit', () => resolve()));
    let running = true;
    void exited.then(() => {
      running = false;
    });
    const outcomes = new Map<string, number>();
    let index = 0;
    while (running) {
      index += 1;
      const results = await Promise.all([
        ws.call('write_workspace_file', { path: `sub/file-${index}.txt`, content: `w${index}` }),
        ws.call('write_workspace_file', { path: `sub/nested-${index}/deep.txt`, content: 'n' }),
        ws.call('write_workspace_files', {
          files: [
            { path: `sub/batch-${index}-a.txt`, content: 'a' },
            { path: `sub/batch-${index}-b.txt`, content: 'b' },
          ],
        }),
        ws.call('read_workspace_file', { path: 'sub/edit.txt' }).then(() =>
          ws.call('edit_workspace_file', {
            path: 'sub/edit.txt',
            old_text: 'line',
            new_text: 'line',
          }),
        ),
      ]);
      for (const result of results) {
        const key = result.ok ? 'ok' : String(result['error_type']);
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
    }
    await exited;
    const summary = JSON.stringify({ swaps, outcomes: Object.fromEntries(outcomes) });
    expect(JSON.parse(swaps).swaps, summary).toBeGreaterThan(100);
    // Some writes landed, some were refused — none went outside, none left a temporary.
    expect(outcomes.get('ok') ?? 0, summary).toBeGreaterThan(0);
    // A change underfoot is answered with what it means (not_found, already_exists…), never a bare tool_error.
    expect(outcomes.get('tool_error'), summary).toBeUndefined();
    expect(await tree(ws.outside), `files outside; ${summary}`).toEqual(before);
    const leftovers = (await tree(ws.root)).filter((entry) => entry.includes('.ksadk-'));
    expect(leftovers, `temporaries left; ${summary}`).toEqual([]);
  }, 60_000);
});

describe('reads racing a directory swap never read outside the root', () => {
  it('a swapper process for 2 s: read, lint and edit never see the outside file', async () => {
    await mkdir(path.join(ws.root, 'sub'));
    await writeFile(path.join(ws.root, 'sub', 'notes.md'), 'inside\n');
    // The link's target holds a file of the same name.
    await writeFile(path.join(ws.outside, 'notes.md'), 'OUTSIDE THE WORKSPACE\n');
    const swapper = spawn(process.execPath, ['-e', SWAPPER, ws.root, ws.outside, '2000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let swaps = '';
    swapper.stdout.on('data', (chunk) => {
      swaps += String(chunk);
    });
    const exited = new Promise<void>((resolve) => swapper.once('exit', () => resolve()));
    let running = true;
    void exited.then(() => {
      running = false;
    });
    const outcomes = new Map<string, number>();
    while (running) {
      const results = await Promise.all([
        ws.call('read_workspace_file', { path: 'sub/notes.md' }),
        ws.call('read_workspace_file', { path: 'sub/notes.md', include_line_numbers: false }),
        ws.call('lint_workspace_file', { path: 'sub/notes.md' }),
        ws.call('edit_workspace_file', { path: 'sub/notes.md', old_text: 'xyz', new_text: 'x' }),
      ]);
      for (const result of results) {
        const key = result.ok ? 'ok' : String(result['error_type']);
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        expect(JSON.stringify(result)).not.toContain('OUTSIDE');
      }
    }
    await exited;
    const summary = JSON.stringify({ swaps, outcomes: Object.fromEntries(outcomes) });
    expect(JSON.parse(swaps).swaps, summary).toBeGreaterThan(100);
    expect(outcomes.get('ok') ?? 0, summary).toBeGreaterThan(0);
    expect(outcomes.get('tool_error'), summary).toBeUndefined();
  }, 60_000);
});

describe('special files never hang a tool', () => {
  it('read, lint, edit and search refuse a FIFO at once, many times, and the thread pool stays free', async () => {
    execFileSync('mkfifo', [path.join(ws.root, 'pipe')]);
    const started = Date.now();
    for (let round = 0; round < 8; round += 1) {
      for (const [tool, args] of [
        ['read_workspace_file', { path: 'pipe' }],
        ['lint_workspace_file', { path: 'pipe' }],
        ['edit_workspace_file', { path: 'pipe', old_text: 'a', new_text: 'b' }],
      ] as const) {
        const result = await ws.call(tool, args);
        expect(result, tool).toMatchObject({ ok: false });
        expect(['not_a_file', 'file_not_read']).toContain(result['error_type']);
      }
      expect(await ws.call('search_workspace_files', { query: 'x' })).toMatchObject({ ok: true });
    }
    // libuv's pool is free: ordinary file work still completes.
    await writeFile(path.join(ws.root, 'ok.txt'), 'fine\n');
    expect(await readFile(path.join(ws.root, 'ok.txt'), 'utf8')).toBe('fine\n');
    expect(await ws.call('read_workspace_file', { path: 'ok.txt' })).toMatchObject({ ok: true });
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 20_000);
});

describe('paths are never altered, and errors echo little of them', () => {
  it('" a.txt" names " a.txt", and an over-long path is invalid_path with a short echo', async () => {
    await ws.call('write_workspace_file', { path: ' a.txt', content: 'spaced' });
    expect(await readdir(ws.root)).toContain(' a.txt');
    expect(await readdir(ws.root)).not.toContain('a.txt');
    const long = `${'x'.repeat(300)}/${'y'.repeat(5000)}`;
    for (const tool of ['read_workspace_file', 'write_workspace_file', 'delete_workspace_file']) {
      const result = await ws.call(tool, { path: long, content: 'x' });
      expect(result, tool).toMatchObject({ ok: false, error_type: 'invalid_path' });
      expect(JSON.stringify(result).length, tool).toBeLessThan(700);
    }
    const segment = await ws.call('write_workspace_file', { path: 'z'.repeat(300), content: 'x' });
    expect(segment).toMatchObject({ ok: false, error_type: 'invalid_path' });
    expect(String(segment['error_message']).length).toBeLessThan(300);
  });
});

describe('search never finds its own saved results', () => {
  it('results persisted by one search are not matched by the next', async () => {
    await writeFile(
      path.join(ws.root, 'many.txt'),
      Array.from({ length: 3000 }, (_, i) => `needle ${i} ${'pad '.repeat(20)}`).join('\n'),
    );
    const first = await ws.call('search_workspace_files', { query: 'needle', max_results: 5000 });
    expect(first).toMatchObject({ ok: true, match_count: 3000, results_truncated: true });
    for (let again = 0; again < 3; again += 1) {
      const next = await ws.call('search_workspace_files', { query: 'needle', max_results: 5000 });
      expect(next['match_count']).toBe(3000);
    }
  });
});
