import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isRegularFileNoFollow,
  listFilesNoFollow,
  NoFollowError,
  readNoFollow,
  removeNoFollow,
  writeExclusive,
} from './no-follow-files.js';

const SWAPPER = fileURLToPath(new URL('./test-fixtures/exchange-swapper.py', import.meta.url));

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-no-follow-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'a', 'b'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'outside secret');
  await writeFile(path.join(root, 'a', 'b', 'inside.txt'), 'inside');
  await symlink(outside, path.join(root, 'a', 'linked-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'a', 'linked-file'));
  execFileSync('mkfifo', [path.join(root, 'a', 'fifo')]);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const reasonOf = async (work: Promise<unknown>): Promise<string> =>
  work.then(
    () => 'ok',
    (error: unknown) => (error instanceof NoFollowError ? error.reason : String(error)),
  );

describe('no-follow file operations in a folder someone else controls', () => {
  it('reads a regular file, and refuses a link at the end or on the way, a FIFO and growth', async () => {
    expect((await readNoFollow(root, 'a/b/inside.txt', 100)).toString()).toBe('inside');
    expect(await reasonOf(readNoFollow(root, 'a/linked-file', 100))).toBe('link');
    expect(await reasonOf(readNoFollow(root, 'a/linked-dir/secret.txt', 100))).toBe('link');
    // A FIFO neither blocks nor is read.
    expect(await reasonOf(readNoFollow(root, 'a/fifo', 100))).toBe('not_regular');
    expect(await reasonOf(readNoFollow(root, 'a/b/inside.txt', 3))).toBe('too_large');
    expect(await reasonOf(readNoFollow(root, '../outside/secret.txt', 100))).toBe('not_found');
    expect(await isRegularFileNoFollow(root, 'a/linked-dir/secret.txt')).toBe(false);
    expect(await isRegularFileNoFollow(root, 'a/fifo')).toBe(false);
    expect(await isRegularFileNoFollow(root, 'a/b/inside.txt')).toBe(true);
  });

  it('the root itself may be reached through a link (it is trusted); nothing below it is', async () => {
    await symlink(root, path.join(base, 'root-link'));
    expect(
      (await readNoFollow(path.join(base, 'root-link'), 'a/b/inside.txt', 100)).toString(),
    ).toBe('inside');
    expect(await reasonOf(readNoFollow(path.join(base, 'root-link'), 'a/linked-file', 100))).toBe(
      'link',
    );
  });

  it('replaces a link planted where it writes, never writing through it', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'planted'));
    await writeExclusive(root, 'planted', 'mine');
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
    expect(await readFile(path.join(root, 'planted'), 'utf8')).toBe('mine');
    expect(await reasonOf(writeExclusive(root, 'a/linked-dir/new.txt', 'x'))).toBe('link');
    await expect(readFile(path.join(outside, 'new.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('removes a link itself, not what it points at', async () => {
    await symlink(outside, path.join(root, 'to-remove'));
    await removeNoFollow(root, 'to-remove');
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
    await removeNoFollow(root, 'a/linked-dir/secret.txt');
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
  });

  it('removing a tree while another process swaps a folder of it for a link deletes nothing outside', {
    timeout: 120_000,
  }, async () => {
    // Node's own recursive rm deleted 1,200+ files outside in 40 rounds of this (it names every
    // child by a path string, re-resolved each time): a few rounds find it. Twelve, or as many as
    // fit in 30 s (at least four) on a machine busy with other tests.
    const victims = path.join(base, 'victims');
    let deleted = 0;
    const race = path.join(base, 'race');
    const started = performance.now();
    for (let round = 0; round < 12; round += 1) {
      if (round >= 4 && performance.now() - started > 30_000) break;
      await rm(victims, { recursive: true, force: true });
      await mkdir(victims, { recursive: true });
      for (let i = 0; i < 200; i += 1) await writeFile(path.join(victims, `v${i}`), 'keep');
      const tree = path.join(race, `tree-${round}`);
      await mkdir(path.join(tree, 'a'), { recursive: true });
      // The decoys have the victims' names: a walker that follows the swapped link unlinks them.
      for (let i = 0; i < 200; i += 1) await writeFile(path.join(tree, 'a', `v${i}`), 'decoy');
      await symlink(victims, path.join(tree, 'a_link'));
      const swapper = spawn('python3', [SWAPPER, tree], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise((resolve) => swapper.stdout.once('data', resolve));
      await removeNoFollow(race, `tree-${round}`).catch(() => undefined);
      swapper.kill('SIGKILL');
      await new Promise((resolve) => swapper.once('exit', resolve));
      deleted += 200 - (await readdir(victims)).length;
    }
    expect(deleted).toBe(0);
  });

  it('lists regular files only, never through a link, within its bounds', async () => {
    const limits = { maxFiles: 100, maxEntries: 100, maxDepth: 8, deadlineMs: 5_000 };
    const walk = await listFilesNoFollow(root, '.', limits);
    expect(walk.files).toContain('a/b/inside.txt');
    expect(walk.files.join()).not.toContain('secret');
    expect(walk.truncated).toBe(false);
    // A start folder that is a link gives nothing.
    expect(await listFilesNoFollow(root, 'a/linked-dir', limits)).toEqual({
      files: [],
      truncated: false,
    });
    const shallow = await listFilesNoFollow(root, '.', { ...limits, maxDepth: 1 });
    expect(shallow).toMatchObject({ truncated: true });
    expect(shallow.files).not.toContain('a/b/inside.txt');
    const few = await listFilesNoFollow(root, '.', { ...limits, maxEntries: 2 });
    expect(few.truncated).toBe(true);
    // Exactly as many files as may be listed (and a link beside them): nothing was left out.
    const exact = path.join(base, 'exact');
    await mkdir(exact);
    for (let i = 0; i < 3; i += 1) await writeFile(path.join(exact, `f${i}`), 'x');
    await symlink(outside, path.join(exact, 'zz-link'));
    expect(await listFilesNoFollow(exact, '.', { ...limits, maxFiles: 3 })).toEqual({
      files: ['f0', 'f1', 'f2'],
      truncated: false,
    });
    expect((await listFilesNoFollow(exact, '.', { ...limits, maxFiles: 2 })).truncated).toBe(true);
  });
});
