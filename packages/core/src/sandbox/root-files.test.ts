import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { HAS_PROC_FD } from './root-directory.js';
import { listRootFiles, readRootFile, resolveRootCwd, writeRootFile } from './root-files.js';
import { normalizeSandboxPath } from './sandbox-paths.js';
import { tempDir } from './test-fixtures/process-probes.js';

describe('normalizeSandboxPath', () => {
  it('keeps relative paths inside the root and normalises them', () => {
    expect(normalizeSandboxPath('')).toBe('.');
    expect(normalizeSandboxPath('.')).toBe('.');
    expect(normalizeSandboxPath('a/./b//c/')).toBe('a/b/c');
    expect(normalizeSandboxPath('a/../b')).toBe('b');
    expect(normalizeSandboxPath('a/..')).toBe('.');
    expect(normalizeSandboxPath('..a/b')).toBe('..a/b');
  });

  it('refuses absolute paths, escapes, NUL bytes, non-strings and huge paths', () => {
    for (const input of [
      '/etc/passwd',
      '..',
      '../x',
      'a/../../x',
      'a\0b',
      42,
      null,
      'x'.repeat(5000),
    ]) {
      let error: unknown;
      try {
        normalizeSandboxPath(input);
      } catch (caught) {
        error = caught;
      }
      expect(KsadkError.isInstance(error)).toBe(true);
      expect((error as KsadkError).code).toBe('unsupported');
      expect(['path_outside_sandbox', 'invalid_path']).toContain(
        (error as KsadkError).details?.['reason'],
      );
    }
  });
});

// Both strategies: descriptors through /proc/self/fd (Linux) and the portable lstat walk.
const strategies = HAS_PROC_FD ? [true, false] : [false];

describe.each(strategies)('root files (procFd: %s)', (procFd) => {
  let base: string;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    base = await tempDir();
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    await mkdir(root);
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'outside secret');
    await symlink(outside, path.join(root, 'out-dir'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'out-file'));
    await mkdir(path.join(root, 'in'));
    await writeFile(path.join(root, 'in', 'real.txt'), 'inside');
    await symlink(path.join(root, 'in'), path.join(root, 'in-dir'));
    await symlink(path.join(root, 'in', 'real.txt'), path.join(root, 'in-file'));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });
  const reason = async (promise: Promise<unknown>): Promise<unknown> => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(KsadkError.isInstance(error)).toBe(true);
    return (error as KsadkError).details?.['reason'];
  };

  it('writes create parents; reads follow symlinks that stay inside', async () => {
    await writeRootFile(root, 'x/y/z.txt', 'data', { procFd });
    expect(await readFile(path.join(root, 'x/y/z.txt'), 'utf8')).toBe('data');
    await writeRootFile(root, 'in-dir/through-link.txt', 'ok', { procFd });
    expect(await readFile(path.join(root, 'in/through-link.txt'), 'utf8')).toBe('ok');
    expect(Buffer.from(await readRootFile(root, 'in-file', { procFd })).toString()).toBe('inside');
  });

  it('refuses symlinks that lead outside, for reads, writes, listings and working directories', async () => {
    expect(await reason(readRootFile(root, 'out-file', { procFd }))).toBe('path_outside_sandbox');
    expect(await reason(readRootFile(root, 'out-dir/secret.txt', { procFd }))).toBe(
      'path_outside_sandbox',
    );
    expect(await reason(writeRootFile(root, 'out-dir/planted.txt', 'x', { procFd }))).toBe(
      'path_outside_sandbox',
    );
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
    expect(await reason(writeRootFile(root, 'out-dir/new/deep.txt', 'x', { procFd }))).toBe(
      'path_outside_sandbox',
    );
    expect(existsSync(path.join(outside, 'new'))).toBe(false);
    // Writes never go through a final symlink, even one that stays inside.
    expect(await reason(writeRootFile(root, 'out-file', 'x', { procFd }))).toBe(
      'path_outside_sandbox',
    );
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
    expect(await reason(writeRootFile(root, 'in-file', 'x', { procFd }))).toBe(
      'path_outside_sandbox',
    );
    expect(await reason(listRootFiles(root, 'out-dir', { procFd }))).toBe('path_outside_sandbox');
    expect(await resolveRootCwd(root, 'out-dir', { procFd })).toMatchObject({
      ok: false,
      error_type: 'path_outside_sandbox',
    });
  });

  it('lists regular files only, never following symlinks', async () => {
    expect(await listRootFiles(root, '.', { procFd })).toEqual(['in/real.txt']);
  });

  it('a write replaces a hard link a command left at the name, never writing through it', async () => {
    const { link } = await import('node:fs/promises');
    await link(path.join(outside, 'secret.txt'), path.join(root, 'hard.txt'));
    await writeRootFile(root, 'hard.txt', 'mine', { procFd });
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
    expect(await readFile(path.join(root, 'hard.txt'), 'utf8')).toBe('mine');
  });

  it('a write over an existing file keeps its permissions', async () => {
    const { chmod, stat } = await import('node:fs/promises');
    await writeFile(path.join(root, 'run.sh'), 'echo old');
    await chmod(path.join(root, 'run.sh'), 0o755);
    await writeRootFile(root, 'run.sh', 'echo new', { procFd });
    expect((await stat(path.join(root, 'run.sh'))).mode & 0o777).toBe(0o755);
  });

  it('a listing stops in a tree of empty folders, not only at maxEntries files', async () => {
    for (let i = 0; i < 300; i += 1)
      await mkdir(path.join(root, 'many', `d${String(i).padStart(3, '0')}`), { recursive: true });
    await mkdir(path.join(root, 'many', 'zz'));
    await writeFile(path.join(root, 'many', 'zz', 'last.txt'), 'x');
    expect(await listRootFiles(root, 'many', { procFd })).toEqual(['many/zz/last.txt']);
    // Ten times maxEntries entries are looked at, at most: the file past 300 folders is not reached.
    expect(await listRootFiles(root, 'many', { procFd, maxEntries: 10 })).toEqual([]);
  });

  it('refuses a FIFO planted where a file is expected, without blocking', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect(await reason(readRootFile(root, 'pipe', { procFd }))).toBe('invalid_path');
    expect(await reason(writeRootFile(root, 'pipe', 'x', { procFd }))).toBe('ENXIO');
  }, 5_000);

  it('refuses files over maxBytes', async () => {
    await writeFile(path.join(root, 'big.txt'), 'x'.repeat(100));
    expect(await reason(readRootFile(root, 'big.txt', { procFd, maxBytes: 99 }))).toBe(
      'file_too_large',
    );
    expect((await readRootFile(root, 'big.txt', { procFd, maxBytes: 100 })).length).toBe(100);
  });

  it('turns file-system failures into KsadkError with the errno as reason', async () => {
    expect(await reason(readRootFile(root, 'missing.txt', { procFd }))).toBe('ENOENT');
    expect(await reason(readRootFile(root, 'in', { procFd }))).toBe('invalid_path');
    expect(await reason(writeRootFile(root, 'in/real.txt/under', 'x', { procFd }))).toBe('ENOTDIR');
  });
});
