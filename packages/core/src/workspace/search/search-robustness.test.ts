import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { createTestWorkspace } from '../test-fixtures/workspace-test-kit.js';
import { compileGlob, globToRe2 } from './glob-matcher.js';
import { ripgrepAvailable } from './ripgrep.js';

let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
beforeEach(async () => {
  ws = await createTestWorkspace({ useRipgrep: false });
  await ws.call('workspace_status', {});
});
afterEach(() => ws.cleanup());

/** Deterministic pseudo-random text of `a` and `b`. */
function randomAb(length: number): string {
  let seed = 1;
  let out = '';
  for (let index = 0; index < length; index += 1) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out += seed % 2 === 0 ? 'a' : 'b';
  }
  return out;
}

/** Runs `work` while measuring the longest event-loop stall, in milliseconds. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const value = await work();
    return { value, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

describe('nothing a model sends to search stalls the event loop', () => {
  it('a slow pattern on a 500 kB line runs off the main thread and stops at the call timeout', async () => {
    // Random a/b text defeats RE2's DFA for this pattern (2^999 states), so matching falls back
    // to the NFA: about 18 s of CPU for one 500 kB line — synchronous, in the old search.
    await writeFile(path.join(ws.root, 'long.txt'), `${randomAb(500_000)}\n`);
    const tool = ws.toolset.tools.find((t) => t.name === 'search_workspace_files')!;
    const gateway = createToolGateway({ approvalMode: 'full', timeoutMs: 1_500, env: ws.env });
    const started = Date.now();
    const { value, stallMs } = await longestStall(() =>
      runWithInvocationContext({}, () =>
        gateway.invoke(tool, { query: 'a[ab]{999}[^ab]', is_regex: true, case_sensitive: true }),
      ),
    );
    expect(value).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stallMs).toBeLessThan(250);
  }, 20_000);

  it('refuses over-long queries and patterns whose program is too large, before searching', async () => {
    const huge = await ws.call('search_workspace_files', { query: 'a'.repeat(1001) });
    expect(huge).toMatchObject({ ok: false, error_type: 'invalid_arguments' });
    const complex = await ws.call('search_workspace_files', {
      query: '[a-z]{1000}'.repeat(11),
      is_regex: true,
    });
    expect(complex).toMatchObject({ ok: false, error_type: 'regex_too_complex' });
  });

  it('does not fall back to the in-process engine when ripgrep refuses a pattern for its size', async () => {
    if (!(await ripgrepAvailable())) {
      // Without ripgrep there is nothing to refuse; CI installs it (see search-tool.test.ts).
      expect(process.env['CI']).toBeFalsy();
      return;
    }
    const rg = await createTestWorkspace({ useRipgrep: true });
    try {
      await rg.call('workspace_status', {});
      await writeFile(path.join(rg.root, 'long.txt'), `${'x'.repeat(500_000)}\n`);
      const started = Date.now();
      const { value, stallMs } = await longestStall(() =>
        rg.call('search_workspace_files', { query: '\\w{1000}', is_regex: true }),
      );
      expect(value).toMatchObject({ ok: false, error_type: 'regex_too_complex' });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(stallMs).toBeLessThan(250);
      expect(
        await rg.call('search_workspace_files', { query: '\\Qa.b\\E', is_regex: true }),
      ).toMatchObject({ ok: false, error_type: 'invalid_regex' });
    } finally {
      await rg.cleanup();
    }
  }, 20_000);
});

describe('globs match in linear time', () => {
  const hostile = `${'*?'.repeat(30)}x`;
  // 32 wildcards: the most allowed, and astronomically slow for a backtracking matcher.
  const underCap = `${'*?'.repeat(16)}x`;

  it('a glob of repeated *? against ordinary names returns at once in list, status and search', async () => {
    await mkdir(path.join(ws.root, 'dir'), { recursive: true });
    const name = `${'a'.repeat(61)}y`;
    await writeFile(path.join(ws.root, 'dir', name), 'needle\n');
    const started = Date.now();
    const { value, stallMs } = await longestStall(async () => [
      await ws.call('list_workspace_files', { glob: underCap, recursive: true }),
      await ws.call('search_workspace_files', { query: 'needle', glob: underCap }),
    ]);
    expect(value[0]).toMatchObject({ ok: true, entries: [] });
    expect(value[1]).toMatchObject({ ok: true, match_count: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stallMs).toBeLessThan(250);
  }, 20_000);

  it('refuses globs over 256 characters or 32 wildcards, and malformed ones', async () => {
    for (const glob of [hostile, 'a'.repeat(300), '{a,b', 'x\\']) {
      expect(await ws.call('list_workspace_files', { glob }), glob).toMatchObject({
        ok: false,
        error_type: 'invalid_glob',
      });
      expect(await ws.call('search_workspace_files', { query: 'x', glob }), glob).toMatchObject({
        ok: false,
        error_type: 'invalid_glob',
      });
    }
  });

  it('keeps the glob rules: *, ?, **, classes, braces, escapes; path or name', async () => {
    const cases: [string, string, boolean][] = [
      ['*.py', 'a.py', true],
      ['*.py', 'src/a.py', false],
      ['src/*', 'src/a.ts', true],
      ['src/*', 'src/a/b.ts', false],
      ['src/**/*.ts', 'src/a.ts', true],
      ['src/**/*.ts', 'src/a/b/c.ts', true],
      ['**/*.md', 'x.md', true],
      ['**/*.md', 'a/b/x.md', true],
      ['src/**', 'src/a/b', true],
      ['src/**', 'src', true],
      ['a?c', 'abc', true],
      ['a?c', 'a/c', false],
      ['[!a]*.txt', 'b.txt', true],
      ['[!a]*.txt', 'a.txt', false],
      ['[a-c]x', 'bx', true],
      ['{a,b}/*.{js,ts}', 'b/x.ts', true],
      ['{a,b}/*.{js,ts}', 'c/x.ts', false],
      ['x\\*y', 'x*y', true],
      ['x\\*y', 'xzy', false],
      ['.env*', '.env.local', true],
      ['file(1).txt', 'file(1).txt', true],
      ['a+b$^.txt', 'a+b$^.txt', true],
    ];
    for (const [glob, candidate, expected] of cases) {
      const matcher = await compileGlob(glob);
      if (typeof matcher !== 'function') throw new Error(`${glob}: ${matcher.error_message}`);
      expect(matcher(candidate), `${glob} ~ ${candidate} (${String(globToRe2(glob))})`).toBe(
        expected,
      );
    }
  });
});
