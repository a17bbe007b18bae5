import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isRegularFileNoFollow,
  listFilesNoFollow,
  NoFollowError,
  readNoFollow,
  removeNoFollow,
  writeExclusive,
} from './no-follow-files.js';

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
  });
});
