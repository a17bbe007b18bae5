import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { mkdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reserveDirectory } from '../util/reserved-dirs.js';
import { readDirectly } from './direct-read.js';
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

describe('readDirectly: the short way, or undefined', () => {
  it('reads a regular file in the root or below, with fstat size and mtime', async () => {
    const top = await readDirectly(ws.root, 'ok.txt', MAX);
    const nested = await readDirectly(ws.root, 'sub/notes.md', MAX);
    expect(text(top)).toBe('fine\n');
    expect(top?.sizeBytes).toBe(5);
    expect(top?.mtimeNs).toBe((await stat(path.join(ws.root, 'ok.txt'), { bigint: true })).mtimeNs);
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
    // procfs reports size 0 for files that hold text: a file that grew after its fstat.
    const proc = `/proc/${process.pid}`;
    expect(await readDirectly(proc, 'status', MAX)).toBeUndefined();
    const grown = await readWorkspaceText(proc, 'status');
    expect(grown).toMatchObject({ file: { text: expect.stringContaining('Name:') } });
  });

  it('refuses a file over the cap that grows while it is read: too_large, never a cut text', async () => {
    const file = path.join(ws.root, 'growing.txt');
    await writeFile(file, 'x'.repeat(MAX - 10));
    let stop = false;
    const grower = (async () => {
      // Grows past the cap and back, as fast as it can.
      for (let round = 0; !stop; round += 1) {
        await writeFile(file, 'x'.repeat(round % 2 === 0 ? MAX + 10 : MAX - 10));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      for (let read = 0; read < 50; read += 1) {
        const result = await readWorkspaceText(ws.root, 'growing.txt');
        if ('file' in result) expect(result.file.text.length).toBeLessThanOrEqual(MAX);
        else expect(['too_large', 'not_found']).toContain(result.error_type);
      }
    } finally {
      stop = true;
      await grower;
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
    const sub = path.join(ws.root, 'sub');
    const aside = path.join(ws.root, 'sub.aside');
    let stop = false;
    let swaps = 0;
    const swapper = (async () => {
      while (!stop) {
        await rename(sub, aside);
        await symlink(path.join(ws.outside, 'sub'), sub);
        await new Promise((resolve) => setImmediate(resolve));
        await rm(sub);
        await rename(aside, sub);
        swaps += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const seen = new Map<string, number>();
    const started = Date.now();
    try {
      while (
        Date.now() - started < 2_000 ||
        (!seen.has('inside') && Date.now() - started < 20_000)
      ) {
        const direct = await readDirectly(ws.root, 'sub/notes.md', MAX);
        const tool = await readWorkspaceText(ws.root, 'sub/notes.md');
        for (const key of [
          direct ? text(direct)! : 'undefined',
          'file' in tool ? tool.file.text : tool.error_type,
        ])
          seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    } finally {
      stop = true;
      await swapper;
    }
    const summary = JSON.stringify({ swaps, seen: Object.fromEntries(seen) });
    expect(swaps, summary).toBeGreaterThan(10);
    expect(seen.has('OUTSIDE THE WORKSPACE'), summary).toBe(false);
    expect(seen.get('inside') ?? 0, summary).toBeGreaterThan(0);
    for (const key of seen.keys())
      expect(['inside', 'undefined', 'path_outside_workspace', 'not_found'], summary).toContain(
        key,
      );
  });

  it('racing a swap of the file itself for a link, a FIFO or nothing, reads only the real file and never hangs', {
    timeout: 30_000,
  }, async () => {
    const file = path.join(ws.root, 'sub', 'notes.md');
    const staged = path.join(ws.root, 'notes.staged');
    let stop = false;
    const swapper = (async () => {
      for (let round = 0; !stop; round += 1) {
        await rm(file, { force: true });
        if (round % 3 === 0) await symlink(path.join(ws.outside, 'secret.txt'), file);
        else if (round % 3 === 1) execFileSync('mkfifo', [file]);
        await new Promise((resolve) => setImmediate(resolve));
        await rm(file, { force: true });
        await writeFile(staged, 'inside');
        await rename(staged, file);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const seen = new Map<string, number>();
    const started = Date.now();
    try {
      while (
        Date.now() - started < 2_000 ||
        (!seen.has('inside') && Date.now() - started < 20_000)
      ) {
        const direct = await readDirectly(ws.root, 'sub/notes.md', MAX);
        const tool = await readWorkspaceText(ws.root, 'sub/notes.md');
        for (const key of [
          direct ? text(direct)! : 'undefined',
          'file' in tool ? tool.file.text : tool.error_type,
        ])
          seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    } finally {
      stop = true;
      await swapper;
    }
    const summary = JSON.stringify(Object.fromEntries(seen));
    expect(seen.has('TOP SECRET'), summary).toBe(false);
    expect(seen.get('inside') ?? 0, summary).toBeGreaterThan(0);
    for (const key of seen.keys())
      expect(
        ['inside', 'undefined', 'path_outside_workspace', 'not_found', 'not_a_file'],
        summary,
      ).toContain(key);
  });
});
