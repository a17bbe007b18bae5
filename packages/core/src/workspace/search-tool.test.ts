import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ripgrepAvailable } from './search/ripgrep.js';
import { createTestWorkspace } from './test-fixtures/workspace-test-kit.js';

let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
beforeEach(async () => {
  ws = await createTestWorkspace({ useRipgrep: false });
  await ws.call('workspace_status', {});
});
afterEach(() => ws.cleanup());

const put = async (root: string, file: string, content: string | Buffer) => {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), content);
};

describe('search_workspace_files (built-in)', () => {
  it('regex, glob, context and limit', async () => {
    await put(ws.root, 'a.py', 'import os\nneedle_12 = 1\nprint(needle_12)\n');
    await put(ws.root, 'b.txt', 'needle_3\n');
    const one = await ws.call('search_workspace_files', {
      query: 'needle_\\d+',
      is_regex: true,
      glob: '*.py',
      context_lines: 1,
      max_results: 1,
    });
    expect(one).toMatchObject({
      ok: true,
      searched_path: '.',
      match_count: 1,
      truncated: true,
      context_lines: 1,
      search_backend: 'builtin',
      results: [
        {
          path: 'a.py',
          line: 2,
          text: 'needle_12 = 1',
          context_before: ['import os'],
          context_after: ['print(needle_12)'],
        },
      ],
    });
    await put(ws.root, 'c.py', 'x\n');
    const exact = await ws.call('search_workspace_files', {
      query: 'needle_12 =',
      glob: '*.py',
      context_lines: 1,
      max_results: 1,
    });
    expect(exact).toMatchObject({ match_count: 1, truncated: false });
    await put(ws.root, 'd.py', 'needle_9\n');
    expect(
      await ws.call('search_workspace_files', {
        query: 'needle_\\d',
        is_regex: true,
        glob: '*.py',
        max_results: 1,
      }),
    ).toMatchObject({ truncated: true });
  });

  it('searches option-looking queries literally', async () => {
    await put(
      ws.root,
      'opts.txt',
      'run with --pre=sh here\nuse -e to pass a pattern\n--files too\n',
    );
    for (const [query, line] of [
      ['--pre=sh', 1],
      ['-e', 2],
      ['--files', 3],
    ] as const) {
      const result = await ws.call('search_workspace_files', { query });
      expect(result['results'], query).toEqual([
        expect.objectContaining({ path: 'opts.txt', line }),
      ]);
    }
  });

  it('reports invalid regular expressions, cannot hang on catastrophic patterns, requires a query', async () => {
    expect(await ws.call('search_workspace_files', { query: '(a', is_regex: true })).toMatchObject({
      ok: false,
      error_type: 'invalid_regex',
    });
    expect(await ws.call('search_workspace_files', { query: '' })).toMatchObject({
      ok: false,
      error_type: 'query_required',
    });
    await put(ws.root, 'evil.txt', `${'a'.repeat(5000)}!\n`);
    const started = Date.now();
    expect(
      await ws.call('search_workspace_files', {
        query: '(a+)+$',
        is_regex: true,
        case_sensitive: true,
      }),
    ).toMatchObject({ ok: true, match_count: 0 });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

/** A tree with everything that could make two search backends disagree. */
async function buildTree(root: string, outside: string) {
  await put(root, 'src/app.ts', 'const Needle = 1;\n// TODO: needle again\nexport {};\n');
  await put(root, 'src/util.py', 'def needle():\n    return "NEEDLE"\n');
  await put(root, '.hidden/conf.txt', 'needle in hidden dir\n');
  await put(root, '.env', 'NEEDLE=1\n');
  await put(root, 'crlf.txt', 'first needle\r\nsecond\r\nthird needle\r\n');
  await put(root, 'lone-cr.txt', 'a needle\rb needle\n');
  await put(
    root,
    'binary.bin',
    Buffer.concat([
      Buffer.from('needle before nul\n'),
      Buffer.from([0]),
      Buffer.from('needle after\n'),
    ]),
  );
  await put(
    root,
    'late-binary.bin',
    Buffer.concat([
      Buffer.from('needle\n'.repeat(20000)),
      Buffer.from([0]),
      Buffer.from('needle\n'),
    ]),
  );
  await put(
    root,
    'latin1.txt',
    Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xe9, 0x0a]),
  );
  await put(root, 'big.txt', `needle\n${'x'.repeat(1024 * 1024)}`);
  await put(root, 'exactly-1mib.txt', `needle\n${'y'.repeat(1024 * 1024 - 7)}`);
  await put(root, 'gitignored.log', 'needle in log\n');
  await put(root, '.gitignore', '*.log\n');
  await put(root, 'deep/a/b/c/d.md', '# needle\nnot it\nneedle\n');
  await put(root, 'unicode.txt', 'naïve needle café\nNEEDLE ünïcode\n');
  await put(root, 'regex.txt', 'needle_1 needle_22\nneedle_x\nfoo(bar)\n');
  await mkdir(outside, { recursive: true });
  await put(outside, 'leak.txt', 'needle outside\n');
  await symlink(path.join(outside, 'leak.txt'), path.join(root, 'leak-link.txt'));
  await symlink(outside, path.join(root, 'outside-dir'));
}

const queries: Record<string, unknown>[] = [
  { query: 'needle' },
  { query: 'needle', case_sensitive: true },
  { query: 'NEEDLE', case_sensitive: true },
  { query: 'needle_\\d+', is_regex: true },
  { query: '^needle$', is_regex: true },
  { query: 'needle$', is_regex: true },
  { query: 'foo(bar)' },
  { query: 'needle', glob: '*.py' },
  { query: 'needle', glob: 'src/*' },
  { query: 'needle', path: 'deep' },
  { query: 'needle', path: 'src/app.ts', context_lines: 2 },
  { query: 'needle', context_lines: 1, max_results: 5 },
  { query: 'needle', max_results: 3 },
  { query: '--pre=sh' },
  { query: '-e' },
  { query: 'ünïcode' },
];

describe('both backends return the same results on the same tree', () => {
  it('rg is installed where CI runs (the parity check needs it)', async () => {
    if (process.env['CI']) expect(await ripgrepAvailable()).toBe(true);
    else expect(typeof (await ripgrepAvailable())).toBe('boolean');
  });

  it('agrees query by query', async () => {
    await buildTree(ws.root, ws.outside);
    const withRg = await createTestWorkspace({ useRipgrep: true });
    try {
      await withRg.call('workspace_status', {});
      await buildTree(withRg.root, withRg.outside);
      const rgAvailable = await ripgrepAvailable();
      for (const args of queries) {
        const builtin = await ws.call('search_workspace_files', args);
        const rg = await withRg.call('search_workspace_files', args);
        expect(builtin['search_backend']).toBe('builtin');
        expect(rg['search_backend']).toBe(rgAvailable ? 'rg' : 'builtin');
        const { search_backend: _a, ...left } = builtin;
        const { search_backend: _b, ...right } = rg;
        expect(right, JSON.stringify(args)).toEqual(left);
      }
      const all = await ws.call('search_workspace_files', { query: 'needle', max_results: 1000 });
      const files = new Set((all['results'] as { path: string }[]).map((r) => r.path));
      expect([...files].sort()).toEqual([
        '.env',
        '.hidden/conf.txt',
        'crlf.txt',
        'deep/a/b/c/d.md',
        'exactly-1mib.txt',
        'gitignored.log',
        'lone-cr.txt',
        'regex.txt',
        'src/app.ts',
        'src/util.py',
        'unicode.txt',
      ]);
    } finally {
      await withRg.cleanup();
    }
  });
});
