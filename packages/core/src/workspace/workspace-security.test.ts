import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestWorkspace } from './test-fixtures/workspace-test-kit.js';

let ws: Awaited<ReturnType<typeof createTestWorkspace>>;

beforeEach(async () => {
  ws = await createTestWorkspace({ useRipgrep: false });
  await ws.call('workspace_status', {});
  await mkdir(ws.outside, { recursive: true });
  await writeFile(path.join(ws.outside, 'secret.txt'), 'TOP SECRET\n');
  await mkdir(path.join(ws.outside, 'dir'));
  await writeFile(path.join(ws.outside, 'dir', 'inner.txt'), 'inner secret\n');
  await writeFile(path.join(ws.root, 'ok.txt'), 'fine\n');
  await symlink(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'file-link'));
  await symlink(path.join(ws.outside, 'dir'), path.join(ws.root, 'dir-link'));
  await symlink(path.join(ws.root, 'loop-a'), path.join(ws.root, 'loop-b'));
  await symlink(path.join(ws.root, 'loop-b'), path.join(ws.root, 'loop-a'));
  await symlink('ok.txt', path.join(ws.root, 'inner-link'));
});
afterEach(() => ws.cleanup());

const escapes = [
  '/etc/passwd',
  '../outside/secret.txt',
  'a/../../outside/secret.txt',
  '..\\outside\\secret.txt',
  'ok.txt\0.png',
  'C:/Windows/win.ini',
  '~/secret',
  'file-link',
  'dir-link/inner.txt',
  'loop-a',
  'loop-b/x',
];

const outsideUntouched = async () => {
  expect(await readFile(path.join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  expect(await readFile(path.join(ws.outside, 'dir', 'inner.txt'), 'utf8')).toBe('inner secret\n');
  expect((await readdir(ws.outside)).sort()).toEqual(['dir', 'secret.txt']);
};

describe('every workspace tool refuses paths that leave the root', () => {
  const calls: [string, (p: string) => Record<string, unknown>][] = [
    ['read_workspace_file', (p) => ({ path: p })],
    ['write_workspace_file', (p) => ({ path: p, content: 'pwned' })],
    [
      'write_workspace_files',
      (p) => ({
        files: [
          { path: 'fine.txt', content: 'a' },
          { path: p, content: 'pwned' },
        ],
      }),
    ],
    ['edit_workspace_file', (p) => ({ path: p, old_text: 'SECRET', new_text: 'pwned' })],
    [
      'multi_edit_workspace_file',
      (p) => ({ path: p, edits: [{ old_text: 'SECRET', new_text: 'pwned' }] }),
    ],
    ['lint_workspace_file', (p) => ({ path: p })],
    ['search_workspace_files', (p) => ({ query: 'secret', path: p })],
    ['list_workspace_files', (p) => ({ path: p })],
    ['delete_workspace_file', (p) => ({ path: p })],
  ];
  for (const [tool, args] of calls) {
    it(tool, async () => {
      for (const candidate of escapes) {
        const result = await ws.call(tool, args(candidate));
        expect(result.ok, `${tool} ${JSON.stringify(candidate)}`).toBe(false);
        expect([
          'path_outside_workspace',
          'invalid_path',
          'not_found',
          'not_a_directory',
        ]).toContain(result['error_type']);
        expect(JSON.stringify(result)).not.toContain('SECRET');
        expect(JSON.stringify(result)).not.toContain(ws.base);
      }
      await outsideUntouched();
      expect(await stat(path.join(ws.root, 'fine.txt')).catch(() => 'absent')).toBe('absent');
    });
  }

  it('absolute and dot-dot paths are path_outside_workspace, NUL too; empty segments are invalid_path', async () => {
    for (const candidate of ['/etc/passwd', '../x', 'a/../../x', 'x\0y']) {
      expect((await ws.call('read_workspace_file', { path: candidate }))['error_type']).toBe(
        'path_outside_workspace',
      );
    }
    expect((await ws.call('read_workspace_file', { path: 'a//b' }))['error_type']).toBe(
      'invalid_path',
    );
  });

  it('percent-encoded traversal is a literal name inside the root', async () => {
    const result = await ws.call('write_workspace_file', {
      path: '%2e%2e/%2e%2e/escape.txt',
      content: 'x',
    });
    expect(result).toMatchObject({ ok: true, path: '%2e%2e/%2e%2e/escape.txt' });
    expect(await readFile(path.join(ws.root, '%2e%2e', '%2e%2e', 'escape.txt'), 'utf8')).toBe('x');
    await outsideUntouched();
  });

  it('an inward .. and an inward symlink are fine', async () => {
    await mkdir(path.join(ws.root, 'a'));
    expect(await ws.call('read_workspace_file', { path: 'a/../ok.txt' })).toMatchObject({
      ok: true,
      path: 'ok.txt',
    });
    expect(await ws.call('read_workspace_file', { path: 'inner-link' })).toMatchObject({
      ok: true,
      path: 'ok.txt',
    });
  });
});

describe('listing and search skip outward symlinks and report them', () => {
  it('list_workspace_files (recursive) and workspace_status', async () => {
    const listed = await ws.call('list_workspace_files', { recursive: true });
    const paths = (listed['entries'] as { path: string; type: string }[]).map(
      (entry) => `${entry.path}:${entry.type}`,
    );
    expect(paths).toEqual(['inner-link:symlink', 'ok.txt:file']);
    expect(listed['skipped']).toEqual(
      expect.arrayContaining([
        { path: 'file-link', reason: 'symlink_outside_workspace' },
        { path: 'dir-link', reason: 'symlink_outside_workspace' },
        { path: 'loop-a', reason: 'broken_symlink' },
        { path: 'loop-b', reason: 'broken_symlink' },
      ]),
    );
    const status = await ws.call('workspace_status', {});
    expect(status).toMatchObject({
      ok: true,
      workspace_root: '.',
      file_count: 1,
      files: [{ path: 'ok.txt', size: 5 }],
    });
    expect(JSON.stringify(status)).not.toContain(ws.base);
  });

  it('search_workspace_files never reads through a symlink', async () => {
    const result = await ws.call('search_workspace_files', { query: 'secret' });
    expect(result).toMatchObject({ ok: true, match_count: 0, search_backend: 'builtin' });
  });
});

describe('delete', () => {
  it('removes a symlink itself, never its target, and refuses the root', async () => {
    expect(await ws.call('delete_workspace_file', { path: 'inner-link' })).toMatchObject({
      ok: true,
      deleted: 'inner-link',
      type: 'symlink',
    });
    expect(await readFile(path.join(ws.root, 'ok.txt'), 'utf8')).toBe('fine\n');
    expect(await ws.call('delete_workspace_file', { path: 'file-link' })).toMatchObject({
      ok: false,
      error_type: 'path_outside_workspace',
    });
    await outsideUntouched();
    for (const root of ['.', './', '']) {
      expect(await ws.call('delete_workspace_file', { path: root })).toMatchObject({
        ok: false,
        error_type: 'refuse_root',
      });
    }
  });

  it('deletes files and empty directories only', async () => {
    await mkdir(path.join(ws.root, 'full'));
    await writeFile(path.join(ws.root, 'full', 'x'), 'x');
    expect(await ws.call('delete_workspace_file', { path: 'full' })).toMatchObject({
      ok: false,
      error_type: 'directory_not_empty',
    });
    expect(await ws.call('delete_workspace_file', { path: 'full/x' })).toMatchObject({ ok: true });
    expect(await ws.call('delete_workspace_file', { path: 'full' })).toMatchObject({
      ok: true,
      type: 'directory',
    });
    expect(await ws.call('delete_workspace_file', { path: 'nope' })).toMatchObject({
      ok: false,
      error_type: 'not_found',
    });
  });
});

describe('writes', () => {
  it('caps the size of a write', async () => {
    const small = await createTestWorkspace({ maxWriteBytes: 10 });
    try {
      expect(
        await small.call('write_workspace_file', { path: 'a.txt', content: 'x'.repeat(11) }),
      ).toMatchObject({ ok: false, error_type: 'too_large' });
      expect(
        await small.call('write_workspace_file', { path: 'a.txt', content: 'x'.repeat(10) }),
      ).toMatchObject({ ok: true, size: 10 });
    } finally {
      await small.cleanup();
    }
  });

  it('a failed batch write leaves no file and no directory behind', async () => {
    const bad = await ws.call('write_workspace_files', {
      files: [
        { path: 'new/deep/one.txt', content: '1' },
        { path: 'ok.txt', content: 'changed' },
        { path: '../escape.txt', content: 'x' },
      ],
    });
    expect(bad).toMatchObject({
      ok: false,
      error_type: 'path_outside_workspace',
      failed_index: 2,
      written: [],
    });
    const conflict = await ws.call('write_workspace_files', {
      files: [
        { path: 'new/two.txt', content: '2' },
        { path: 'ok.txt', content: 'changed' },
      ],
      overwrite: false,
    });
    expect(conflict).toMatchObject({ ok: false, error_type: 'already_exists', failed_index: 1 });
    await mkdir(path.join(ws.root, 'blocker'));
    const midway = await ws.call('write_workspace_files', {
      files: [
        { path: 'staged/a.txt', content: 'a' },
        { path: 'ok.txt', content: 'changed' },
        { path: `${'n'.repeat(300)}.txt`, content: 'x' },
      ],
    });
    expect(midway).toMatchObject({ ok: false, error_type: 'invalid_path', failed_index: 2 });
    expect(
      await ws.call('write_workspace_files', { files: [{ path: 'blocker', content: 'x' }] }),
    ).toMatchObject({ error_type: 'is_a_directory' });
    expect((await readdir(ws.root)).sort()).toEqual([
      'blocker',
      'dir-link',
      'file-link',
      'inner-link',
      'loop-a',
      'loop-b',
      'ok.txt',
    ]);
    expect(await readFile(path.join(ws.root, 'ok.txt'), 'utf8')).toBe('fine\n');
  });

  it('writes a batch all together, reports truncated past 100', async () => {
    const files = Array.from({ length: 101 }, (_, i) => ({
      path: `batch/f${i}.txt`,
      content: String(i),
    }));
    const result = await ws.call('write_workspace_files', { files });
    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result['written']).toHaveLength(100);
    expect(await readdir(path.join(ws.root, 'batch'))).toHaveLength(100);
    expect(
      await ws.call('write_workspace_files', {
        files: [
          { path: 'd.txt', content: '1' },
          { path: './d.txt', content: '2' },
        ],
      }),
    ).toMatchObject({
      ok: false,
      error_type: 'duplicate_path',
    });
  });
});

describe('file permissions', () => {
  it('creates files 0600 and folders 0700 unless configured; an existing file keeps its mode', async () => {
    await ws.call('write_workspace_file', { path: 'private/notes/a.txt', content: 'a' });
    await ws.call('write_workspace_files', { files: [{ path: 'private/b.txt', content: 'b' }] });
    const mode = async (relative: string) =>
      (await stat(path.join(ws.root, relative))).mode & 0o777;
    expect(await mode('private/notes/a.txt')).toBe(0o600);
    expect(await mode('private/b.txt')).toBe(0o600);
    expect(await mode('private')).toBe(0o700);
    expect(await mode('private/notes')).toBe(0o700);
    // ok.txt was made by the host with its own mode: an overwrite keeps it.
    const before = await mode('ok.txt');
    await ws.call('write_workspace_file', { path: 'ok.txt', content: 'new', overwrite: true });
    expect(await mode('ok.txt')).toBe(before);

    const shared = await createTestWorkspace({
      useRipgrep: false,
      fileMode: 0o640,
      dirMode: 0o750,
    });
    try {
      await shared.call('write_workspace_file', { path: 'team/plan.txt', content: 'p' });
      expect((await stat(path.join(shared.root, 'team/plan.txt'))).mode & 0o777).toBe(0o640);
      expect((await stat(path.join(shared.root, 'team'))).mode & 0o777).toBe(0o750);
    } finally {
      await shared.cleanup();
    }
  });
});
