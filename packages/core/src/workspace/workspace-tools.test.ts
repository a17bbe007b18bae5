import { readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestWorkspace } from './test-fixtures/workspace-test-kit.js';

let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
beforeEach(async () => {
  ws = await createTestWorkspace({ useRipgrep: false });
});
afterEach(() => ws.cleanup());

const put = async (file: string, text: string) => {
  await ws.call('workspace_status', {});
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.dirname(path.join(ws.root, file)), { recursive: true });
  await writeFile(path.join(ws.root, file), text);
};

describe('read_workspace_file', () => {
  it('reads a line range with numbers and metadata (partial)', async () => {
    await put('three.txt', 'one\ntwo\nthree\n');
    const result = await ws.call('read_workspace_file', {
      path: 'three.txt',
      start_line: 2,
      end_line: 3,
    });
    expect(result).toMatchObject({
      ok: true,
      path: 'three.txt',
      content: '2 | two\n3 | three',
      start_line: 2,
      end_line: 3,
      line_count: 2,
      read_range: { start: 2, end: 3 },
      total_lines: 3,
      partial: true,
      suggested_action: '',
      truncated: false,
    });
    expect(result['mtime_ns']).toBeGreaterThan(0);
    expect(
      await ws.call('read_workspace_file', { path: 'three.txt', start_line: 3, end_line: 2 }),
    ).toMatchObject({ error_type: 'invalid_range' });
    expect(
      await ws.call('read_workspace_file', { path: 'three.txt', include_line_numbers: false }),
    ).toMatchObject({ content: 'one\ntwo\nthree', partial: false });
  });

  it('counts lines the documented way: \\n and \\r\\n end lines; lone \\r and Unicode separators do not', async () => {
    await put('mixed.txt', 'a\r\nb\rc\u2028d\ne');
    const result = await ws.call('read_workspace_file', {
      path: 'mixed.txt',
      include_line_numbers: false,
    });
    expect(result).toMatchObject({ total_lines: 3, content: 'a\nb\rc\u2028d\ne' });
  });

  it('refuses missing, oversized and non-UTF-8 files with error types', async () => {
    await put('bin.dat', '');
    await writeFile(path.join(ws.root, 'bin.dat'), Buffer.from([0xff, 0xfe, 0x00]));
    await writeFile(path.join(ws.root, 'big.txt'), 'x'.repeat(2 * 1024 * 1024 + 1));
    expect(await ws.call('read_workspace_file', { path: 'nope.txt' })).toMatchObject({
      ok: false,
      error_type: 'not_found',
    });
    expect(await ws.call('read_workspace_file', { path: 'big.txt' })).toMatchObject({
      ok: false,
      error_type: 'too_large',
    });
    expect(await ws.call('read_workspace_file', { path: 'bin.dat' })).toMatchObject({
      ok: false,
      error_type: 'not_utf8_text',
    });
  });

  it('budgets long content to max_chars and says how to read the rest', async () => {
    await put('long.txt', `${'x'.repeat(50)}\n`.repeat(100));
    const result = await ws.call('read_workspace_file', { path: 'long.txt', max_chars: 1000 });
    expect(result).toMatchObject({ ok: true, truncated: true, partial: true });
    expect((result['content'] as string).length).toBe(1000);
    expect(result['suggested_action']).toMatch(/start_line\/end_line/);
  });
});

describe('edits', () => {
  it('requires a read first, with a suggestion', async () => {
    await put('a.txt', 'hello\n');
    const result = await ws.call('edit_workspace_file', {
      path: 'a.txt',
      old_text: 'hello',
      new_text: 'bye',
    });
    expect(result).toMatchObject({ ok: false, error_type: 'file_not_read' });
    expect(result['suggested_action']).toMatch(/read_workspace_file/);
  });

  it('keeps read state per session, and a default key without context', async () => {
    await put('a.txt', 'hello\n');
    await ws.call('read_workspace_file', { path: 'a.txt' }, { sessionId: 'A' });
    expect(
      await ws.call(
        'edit_workspace_file',
        { path: 'a.txt', old_text: 'hello', new_text: 'x' },
        { sessionId: 'B' },
      ),
    ).toMatchObject({
      error_type: 'file_not_read',
    });
    expect(
      await ws.call(
        'edit_workspace_file',
        { path: 'a.txt', old_text: 'hello', new_text: 'x' },
        { sessionId: 'A', accountId: 'other' },
      ),
    ).toMatchObject({
      error_type: 'file_not_read',
    });
    expect(
      await ws.call(
        'edit_workspace_file',
        { path: 'a.txt', old_text: 'hello', new_text: 'hi' },
        { sessionId: 'A' },
      ),
    ).toMatchObject({ ok: true });
    await ws.call('read_workspace_file', { path: 'a.txt' });
    expect(
      await ws.call('edit_workspace_file', { path: 'a.txt', old_text: 'hi', new_text: 'yo' }),
    ).toMatchObject({ ok: true });
  });

  it('detects external modification, then allows consecutive edits after a re-read (and after a partial read)', async () => {
    await put('a.txt', 'one\ntwo\nthree\n');
    await ws.call('read_workspace_file', { path: 'a.txt', start_line: 1, end_line: 1 });
    await writeFile(path.join(ws.root, 'a.txt'), 'one\ntwo\nTHREE\n');
    await utimes(path.join(ws.root, 'a.txt'), new Date(), new Date(Date.now() + 5000));
    const stale = await ws.call('edit_workspace_file', {
      path: 'a.txt',
      old_text: 'two',
      new_text: '2',
    });
    expect(stale).toMatchObject({ ok: false, error_type: 'file_modified_since_read' });
    expect(stale['suggested_action']).toMatch(/Re-read/);
    await ws.call('read_workspace_file', { path: 'a.txt', start_line: 2, end_line: 2 });
    const first = await ws.call('edit_workspace_file', {
      path: 'a.txt',
      old_text: 'two',
      new_text: '2',
    });
    expect(first).toMatchObject({ ok: true, replacements: 1, used_quote_normalization: false });
    expect(first['diff']).toContain('-two\n+2');
    expect(
      await ws.call('edit_workspace_file', { path: 'a.txt', old_text: 'one', new_text: '1' }),
    ).toMatchObject({ ok: true });
    expect(await readFile(path.join(ws.root, 'a.txt'), 'utf8')).toBe('1\n2\nTHREE\n');
  });

  it('matches straight quotes against curly ones; ambiguity without replace_all, two replacements with it', async () => {
    await put('q.txt', 'He said “hi”.\nShe said “hi”.\n');
    await ws.call('read_workspace_file', { path: 'q.txt' });
    expect(
      await ws.call('edit_workspace_file', { path: 'q.txt', old_text: '"hi"', new_text: '"bye"' }),
    ).toMatchObject({
      ok: false,
      error_type: 'ambiguous_edit',
      occurrences: 2,
    });
    const all = await ws.call('edit_workspace_file', {
      path: 'q.txt',
      old_text: '"hi"',
      new_text: '"bye"',
      replace_all: true,
    });
    expect(all).toMatchObject({ ok: true, replacements: 2, used_quote_normalization: true });
    expect(await readFile(path.join(ws.root, 'q.txt'), 'utf8')).toBe(
      'He said "bye".\nShe said "bye".\n',
    );
  });

  it('suggests nearby candidates for a misspelled needle, and lists matching lines when ambiguous', async () => {
    await put(
      'c.py',
      'def compute_total(items):\n    return sum(items)\n\nprint(compute_total([1]))\n',
    );
    await ws.call('read_workspace_file', { path: 'c.py' });
    const missing = await ws.call('edit_workspace_file', {
      path: 'c.py',
      old_text: 'def compute_totl(items):',
      new_text: 'x',
    });
    expect(missing).toMatchObject({ ok: false, error_type: 'snippet_not_found', occurrences: 0 });
    expect((missing['nearby_candidates'] as { line: number }[])[0]).toMatchObject({ line: 1 });
    await put('d.txt', 'value = 1\nvalue = 1\nother\n');
    await ws.call('read_workspace_file', { path: 'd.txt' });
    const ambiguous = await ws.call('edit_workspace_file', {
      path: 'd.txt',
      old_text: 'value = 1',
      new_text: 'v',
    });
    expect((ambiguous['matches'] as { line: number }[]).map((m) => m.line)).toEqual([1, 2]);
    expect(
      await ws.call('edit_workspace_file', {
        path: 'd.txt',
        old_text: 'value = 1',
        new_text: 'v',
        expected_replacements: 2,
      }),
    ).toMatchObject({
      ok: true,
      replacements: 2,
    });
  });

  it('multi-edit is atomic and reports per-edit results', async () => {
    await put('m.txt', 'alpha\nbeta\ngamma\n');
    await ws.call('read_workspace_file', { path: 'm.txt' });
    const failed = await ws.call('multi_edit_workspace_file', {
      path: 'm.txt',
      edits: [
        { old_text: 'alpha', new_text: 'ALPHA' },
        { old_text: 'delta', new_text: 'DELTA' },
      ],
    });
    expect(failed).toMatchObject({
      ok: false,
      error_type: 'snippet_not_found',
      failed_edit_index: 1,
      edit_count: 2,
    });
    expect(await readFile(path.join(ws.root, 'm.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
    const done = await ws.call('multi_edit_workspace_file', {
      path: 'm.txt',
      edits: [
        { old_text: 'alpha', new_text: 'ALPHA' },
        { old_text: 'ALPHA\nbeta', new_text: 'ALPHA\nBETA' },
      ],
    });
    expect(done).toMatchObject({ ok: true, edit_count: 2, replacements: 2 });
    expect(done['diff']).toContain('+BETA');
    expect(
      await ws.call('multi_edit_workspace_file', {
        path: 'm.txt',
        edits: [{ old_text: '', new_text: 'x' }],
      }),
    ).toMatchObject({
      error_type: 'invalid_edit',
      failed_edit_index: 0,
    });
  });

  it('write then edit works without a re-read; overwrite=false refuses an existing file', async () => {
    expect(
      await ws.call('write_workspace_file', { path: 'n/new.txt', content: 'abc\n' }),
    ).toMatchObject({ ok: true, path: 'n/new.txt', size: 4 });
    expect(
      await ws.call('edit_workspace_file', { path: 'n/new.txt', old_text: 'abc', new_text: 'xyz' }),
    ).toMatchObject({ ok: true });
    expect(
      await ws.call('write_workspace_file', { path: 'n/new.txt', content: 'z', overwrite: false }),
    ).toMatchObject({ ok: false, error_type: 'already_exists' });
    expect(await readFile(path.join(ws.root, 'n/new.txt'), 'utf8')).toBe('xyz\n');
  });
});

describe('list_workspace_files', () => {
  it('recursive, glob, files only, sort by size', async () => {
    await put('a.py', 'x'.repeat(10));
    await put('sub/b.py', 'x');
    await put('sub/c.txt', 'x');
    const result = await ws.call('list_workspace_files', {
      recursive: true,
      glob: '*.py',
      include_dirs: false,
      sort_by: 'size',
    });
    expect((result['entries'] as { path: string }[]).map((entry) => entry.path)).toEqual([
      'sub/b.py',
      'a.py',
    ]);
    const top = await ws.call('list_workspace_files', {});
    expect(
      (top['entries'] as { path: string; type: string }[]).map((entry) => [entry.path, entry.type]),
    ).toEqual([
      ['a.py', 'file'],
      ['sub', 'directory'],
    ]);
    expect(await ws.call('list_workspace_files', { path: 'missing' })).toMatchObject({
      ok: false,
      error_type: 'not_found',
    });
    expect(
      await ws.call('list_workspace_files', { recursive: true, max_results: 1 }),
    ).toMatchObject({ truncated: true });
  });
});

describe('lint_workspace_file', () => {
  it('checks JSON, JavaScript, TypeScript and text, and never reports a false ok', async () => {
    await put('bad.json', '{"a": 1,}');
    await put('good.json', '{"a": 1}');
    await put('bad.js', 'function (\n');
    await put('good.mjs', 'export const a = 1;\n');
    await put('bad.ts', 'const x: number = ;\n');
    await put('good.ts', 'const x: number = 1;\nexport { x };\n');
    await put('notes.md', 'fine  \n');
    expect(await ws.call('lint_workspace_file', { path: 'bad.json' })).toMatchObject({
      ok: false,
      language: 'json',
      syntax_checked: true,
    });
    expect(await ws.call('lint_workspace_file', { path: 'good.json' })).toMatchObject({
      ok: true,
      issues: [],
    });
    const js = await ws.call('lint_workspace_file', { path: 'bad.js' });
    expect(js).toMatchObject({ ok: false, language: 'javascript' });
    expect((js['issues'] as { line: number }[])[0]?.line).toBe(1);
    expect(await ws.call('lint_workspace_file', { path: 'good.mjs' })).toMatchObject({ ok: true });
    expect(await ws.call('lint_workspace_file', { path: 'bad.ts' })).toMatchObject({
      ok: false,
      language: 'typescript',
    });
    expect(await ws.call('lint_workspace_file', { path: 'good.ts' })).toMatchObject({
      ok: true,
      language: 'typescript',
    });
    expect(await ws.call('lint_workspace_file', { path: 'notes.md' })).toMatchObject({
      ok: true,
      language: 'markdown',
      issues: [{ severity: 'warning', line: 1, column: 6, message: 'trailing whitespace' }],
    });
  });

  it('checks Python with python3 when present, and says so when it cannot', async () => {
    await put('bad.py', 'def f(:\n  pass\n');
    await put('good.py', 'def f():\n    return 1\n');
    expect(await ws.call('lint_workspace_file', { path: 'good.py' })).toMatchObject({
      ok: true,
      language: 'python',
      syntax_checked: true,
    });
    expect(await ws.call('lint_workspace_file', { path: 'bad.py' })).toMatchObject({
      ok: false,
      issues: [expect.objectContaining({ line: 1 })],
    });
    const originalPath = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      expect(await ws.call('lint_workspace_file', { path: 'good.py' })).toMatchObject({
        ok: false,
        error_type: 'syntax_check_unavailable',
        syntax_checked: false,
      });
    } finally {
      process.env['PATH'] = originalPath;
    }
  });
});
