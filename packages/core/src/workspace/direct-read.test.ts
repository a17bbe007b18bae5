import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reserveDirectory } from '../util/reserved-dirs.js';
import { readDirectly } from './direct-read.js';
import { forgetLocalRoot, localRootDevice, localRootsSettled } from './local-roots.js';
import { createTestWorkspace } from './test-fixtures/workspace-test-kit.js';
import { readWorkspaceText } from './text-file.js';

let ws: Awaited<ReturnType<typeof createTestWorkspace>>;

beforeEach(async () => {
  ws = await createTestWorkspace({ useRipgrep: false });
  await ws.call('workspace_status', {});
  await mkdir(path.join(ws.root, 'sub'), { recursive: true });
  await mkdir(path.join(ws.outside, 'sub'), { recursive: true });
  await writeFile(path.join(ws.root, 'ok.txt'), 'fine\n');
  await writeFile(path.join(ws.root, 'sub', 'notes.md'), 'inside');
  await writeFile(path.join(ws.outside, 'sub', 'notes.md'), 'OUTSIDE THE WORKSPACE');
  await writeFile(path.join(ws.outside, 'secret.txt'), 'TOP SECRET');
});
afterEach(() => ws.cleanup());

const MAX = 2 * 1024 * 1024;
const text = (read: Awaited<ReturnType<typeof readDirectly>>): string | undefined =>
  read?.bytes.toString('utf8');

/**
 * The two ways `readDirectly` reads: through the thread pool, and — for a root on a local file
 * system with nothing mounted below it, which a temporary folder is — synchronously. Every hostile
 * case is checked both ways.
 */
const MODES = {
  'through the thread pool': (root: string): void => forgetLocalRoot(root),
  synchronously: async (root: string): Promise<void> => {
    localRootDevice(root);
    await localRootsSettled();
    expect(localRootDevice(root), 'a temporary folder is on a local file system').toBeTypeOf(
      'bigint',
    );
  },
} as const;

/** Another process that changes the workspace while this one reads: `script` runs for `ms`. */
function changer(script: string, args: string[]): { child: ChildProcess; done: Promise<string> } {
  const child = spawn(process.execPath, ['-e', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += String(chunk);
  });
  return { child, done: new Promise((resolve) => child.once('exit', () => resolve(out))) };
}

// Swaps `root/sub` for a link to `outside/sub` (which holds a file of the same name) and back.
const FOLDER_SWAPPER = `
const fs = require('node:fs');
const [root, outside, ms] = process.argv.slice(1);
const end = Date.now() + Number(ms);
const pause = new Int32Array(new SharedArrayBuffer(4));
let swaps = 0;
while (Date.now() < end) {
  try { fs.renameSync(root + '/sub', root + '/sub.aside'); fs.symlinkSync(outside + '/sub', root + '/sub'); } catch {}
  Atomics.wait(pause, 0, 0, (swaps % 3) * 0.2);
  try { fs.unlinkSync(root + '/sub'); fs.renameSync(root + '/sub.aside', root + '/sub'); swaps++; } catch {}
  Atomics.wait(pause, 0, 0, 0.3);
}
process.stdout.write(String(swaps));
`;

// Swaps `root/sub/notes.md` for a link out, a FIFO or nothing, and back (the real file renamed in whole).
const FILE_SWAPPER = `
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const [root, outside, ms] = process.argv.slice(1);
const file = root + '/sub/notes.md';
const end = Date.now() + Number(ms);
const pause = new Int32Array(new SharedArrayBuffer(4));
let swaps = 0;
while (Date.now() < end) {
  try { fs.rmSync(file, { force: true }); } catch {}
  if (swaps % 3 === 0) fs.symlinkSync(outside + '/secret.txt', file);
  else if (swaps % 3 === 1) execFileSync('mkfifo', [file]);
  Atomics.wait(pause, 0, 0, 0.3);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(root + '/notes.staged', 'inside');
  fs.renameSync(root + '/notes.staged', file);
  swaps++;
  Atomics.wait(pause, 0, 0, 1);
}
process.stdout.write(String(swaps));
`;

// Rewrites `root/growing.txt` past the cap and back, as fast as it can.
const GROWER = `
const fs = require('node:fs');
const [root, max, ms] = process.argv.slice(1);
const end = Date.now() + Number(ms);
let rounds = 0;
const big = 'x'.repeat(Number(max) + 10);
const small = 'x'.repeat(Number(max) - 10);
while (Date.now() < end) fs.writeFileSync(root + '/growing.txt', rounds++ % 2 === 0 ? big : small);
process.stdout.write(String(rounds));
`;

/**
 * Reads `relative` both ways — directly, and through `read_workspace_file` (the fast path, else
 * the careful one, as the model gets it) — until `done`, tallying what came back.
 */
async function tally(relative: string, done: Promise<string>): Promise<Map<string, number>> {
  let running = true;
  void done.then(() => {
    running = false;
  });
  const seen = new Map<string, number>();
  while (running) {
    const direct = await readDirectly(ws.root, relative, MAX);
    const tool = await ws.call('read_workspace_file', {
      path: relative,
      include_line_numbers: false,
    });
    for (const key of [
      direct ? text(direct)! : 'undefined',
      String(tool.ok ? tool['content'] : tool['error_type']),
    ])
      seen.set(key, (seen.get(key) ?? 0) + 1);
    // Synchronous reads would starve this process's own timers and pipes otherwise.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return seen;
}

describe.each(Object.entries(MODES))(
  'readDirectly, %s: the short way, or undefined',
  (_mode, setUp) => {
    beforeEach(() => setUp(ws.root));

    it('reads a regular file in the root or below, with fstat size and mtime', async () => {
      const top = await readDirectly(ws.root, 'ok.txt', MAX);
      const nested = await readDirectly(ws.root, 'sub/notes.md', MAX);
      expect(text(top)).toBe('fine\n');
      expect(top?.sizeBytes).toBe(5);
      expect(top?.mtimeNs).toBe(
        (await stat(path.join(ws.root, 'ok.txt'), { bigint: true })).mtimeNs,
      );
      expect(text(nested)).toBe('inside');
    });

    it('never goes through a link: outward or inward, on the way or at the end', async () => {
      await symlink(path.join(ws.outside, 'sub'), path.join(ws.root, 'out-dir'));
      await symlink(path.join(ws.root, 'sub'), path.join(ws.root, 'in-dir'));
      await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'out-file'));
      await symlink('ok.txt', path.join(ws.root, 'in-file'));
      for (const relative of ['out-dir/notes.md', 'in-dir/notes.md', 'out-file', 'in-file'])
        expect(await readDirectly(ws.root, relative, MAX), relative).toBeUndefined();
      // The careful path then refuses the outward ones and follows the inward ones.
      expect(await readWorkspaceText(ws.root, 'out-dir/notes.md')).toMatchObject({
        ok: false,
        error_type: 'path_outside_workspace',
      });
      expect(await readWorkspaceText(ws.root, 'out-file')).toMatchObject({
        ok: false,
        error_type: 'path_outside_workspace',
      });
      expect(await readWorkspaceText(ws.root, 'in-dir/notes.md')).toMatchObject({
        file: { text: 'inside' },
        target: { relative: 'sub/notes.md' },
      });
    });

    it('never reads a FIFO, even one holding data, and never waits on it', async () => {
      const fifo = path.join(ws.root, 'pipe');
      execFileSync('mkfifo', [fifo]);
      // Opened read-write here, so the pipe has a writer and holds data nobody read yet.
      const holder = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
      try {
        execFileSync('sh', ['-c', `printf queued > '${fifo}'`]);
        const started = Date.now();
        expect(await readDirectly(ws.root, 'pipe', MAX)).toBeUndefined();
        expect(await readWorkspaceText(ws.root, 'pipe')).toMatchObject({
          ok: false,
          error_type: 'not_a_file',
        });
        expect(Date.now() - started).toBeLessThan(2_000);
        // What was queued is still there for its reader.
        const buffer = Buffer.alloc(16);
        expect(buffer.toString('utf8', 0, readSync(holder, buffer, 0, 16, null))).toBe('queued');
      } finally {
        closeSync(holder);
      }
    });

    it('never opens a file in a private folder (a FIFO there releases no writer)', async () => {
      const privateDir = path.join(ws.root, '.private-state');
      await mkdir(privateDir);
      reserveDirectory(privateDir);
      const fifo = path.join(privateDir, 'pipe');
      execFileSync('mkfifo', [fifo]);
      // A writer that blocks until someone opens the FIFO for reading.
      const writer = spawn('sh', ['-c', `printf x > '${fifo}'`], { stdio: 'ignore' });
      try {
        expect(await readDirectly(ws.root, '.private-state/pipe', MAX)).toBeUndefined();
        expect(await readWorkspaceText(ws.root, '.private-state/pipe')).toMatchObject({
          ok: false,
          error_type: 'path_outside_workspace',
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(writer.exitCode).toBeNull();
      } finally {
        writer.kill('SIGKILL');
      }
    });

    it('leaves files over the cap, and files larger than fstat said, to the careful path', async () => {
      await writeFile(path.join(ws.root, 'big.txt'), 'x'.repeat(101));
      expect(await readDirectly(ws.root, 'big.txt', 100)).toBeUndefined();
      expect(text(await readDirectly(ws.root, 'big.txt', 101))).toBe('x'.repeat(101));
      // Over the synchronous read's size, the same file comes back through the thread pool.
      await writeFile(path.join(ws.root, 'larger.txt'), 'y'.repeat(300 * 1024));
      expect(text(await readDirectly(ws.root, 'larger.txt', MAX))).toBe('y'.repeat(300 * 1024));
      // procfs reports size 0 for files that hold text: a file that grew after its fstat.
      const proc = `/proc/${process.pid}`;
      expect(await readDirectly(proc, 'status', MAX)).toBeUndefined();
      const grown = await readWorkspaceText(proc, 'status');
      expect(grown).toMatchObject({ file: { text: expect.stringContaining('Name:') } });
    });

    it('refuses a file over the cap that grows while it is read: too_large, never a cut text', {
      timeout: 30_000,
    }, async () => {
      await writeFile(path.join(ws.root, 'growing.txt'), '');
      const { done } = changer(GROWER, [ws.root, String(MAX), '1500']);
      const seen = await tally('growing.txt', done);
      const rounds = Number(await done);
      const summary = JSON.stringify({ rounds, seen: [...seen.keys()].map((key) => key.length) });
      expect(rounds, summary).toBeGreaterThan(10);
      for (const key of seen.keys()) {
        if (key.startsWith('x') || key === '') expect(key.length, summary).toBeLessThanOrEqual(MAX);
        else expect(['undefined', 'too_large', 'not_found'], summary).toContain(key);
      }
    });

    it('without /proc/self/fd, a path of several segments takes the careful path; one segment does not need it', async () => {
      const missing = path.join(ws.base, 'no-proc');
      expect(await readDirectly(ws.root, 'sub/notes.md', MAX, missing)).toBeUndefined();
      expect(text(await readDirectly(ws.root, 'ok.txt', MAX, missing))).toBe('fine\n');
      expect(text(await readDirectly(ws.root, 'sub/notes.md', MAX))).toBe('inside');
      // A directory standing where /proc/self/fd should be, naming nothing: refused, not trusted.
      await mkdir(missing);
      expect(await readDirectly(ws.root, 'sub/notes.md', MAX, missing)).toBeUndefined();
    });

    it('racing a swap of the folder on the way for a link to the outside, never reads the outside', {
      timeout: 30_000,
    }, async () => {
      const { done } = changer(FOLDER_SWAPPER, [ws.root, ws.outside, '2000']);
      const seen = await tally('sub/notes.md', done);
      const summary = JSON.stringify({ swaps: await done, seen: Object.fromEntries(seen) });
      expect(Number(await done), summary).toBeGreaterThan(10);
      expect(seen.has('OUTSIDE THE WORKSPACE'), summary).toBe(false);
      expect(seen.get('inside') ?? 0, summary).toBeGreaterThan(0);
      // A tree changed underfoot is answered with what it means at that moment.
      for (const key of seen.keys())
        expect(
          ['inside', 'undefined', 'path_outside_workspace', 'not_found', 'not_a_directory'],
          summary,
        ).toContain(key);
    });

    it('racing a swap of the file itself for a link, a FIFO or nothing, reads only the real file and never hangs', {
      timeout: 30_000,
    }, async () => {
      const { done } = changer(FILE_SWAPPER, [ws.root, ws.outside, '2000']);
      const seen = await tally('sub/notes.md', done);
      const summary = JSON.stringify({ swaps: await done, seen: Object.fromEntries(seen) });
      expect(Number(await done), summary).toBeGreaterThan(10);
      expect(seen.has('TOP SECRET'), summary).toBe(false);
      expect(seen.get('inside') ?? 0, summary).toBeGreaterThan(0);
      for (const key of seen.keys())
        expect(
          ['inside', 'undefined', 'path_outside_workspace', 'not_found', 'not_a_file'],
          summary,
        ).toContain(key);
    });
  },
);

describe('local roots', () => {
  it('a root with other file systems mounted below it is read through the thread pool', async () => {
    // Every Linux has /proc, /sys and /dev mounted below /.
    localRootDevice('/');
    await localRootsSettled();
    expect(localRootDevice('/')).toBeUndefined();
  });

  it('a file found on another device than the root it was looked at under is left to the thread pool, and so is that root from then on', async () => {
    await MODES.synchronously(ws.root);
    // The root's path now leads to a folder on another file system (a memory one).
    const elsewhere = await mkdtemp(path.join('/dev/shm', 'ksadk-direct-'));
    try {
      await writeFile(path.join(elsewhere, 'ok.txt'), 'on another device\n');
      await rename(ws.root, `${ws.root}.moved`);
      await symlink(elsewhere, ws.root);
      expect(text(await readDirectly(ws.root, 'ok.txt', MAX))).toBe('on another device\n');
      expect(localRootDevice(ws.root)).toBeUndefined();
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
