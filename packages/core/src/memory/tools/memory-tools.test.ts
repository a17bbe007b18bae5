import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolCatalog } from '../../catalog/tool-catalog.js';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { isApprovalRequired } from '../../gateway/results.js';
import type { Tool } from '../../tool/tool.js';
import type { MemoryBackend, MemoryScope } from '../memory-backend.js';
import { memoryFileOf } from '../memory-file.js';
import { MEMORY_QUERY_MAX_CHARS } from '../memory-ranking.js';
import { createFileMemoryBackend, createInMemoryMemoryBackend } from '../memory-stores.js';
import { createMemoryToolset, memoryToolsetFromEnv } from './index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-mem-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const named = (tools: Tool[], name: string) => tools.find((tool) => tool.name === name)!;
const as = <T>(accountId: string, userId: string, fn: () => Promise<T>) =>
  runWithInvocationContext({ accountId, userId, sessionId: 's1', agentId: 'agent-1' }, fn);

describe('memory tools', () => {
  it('appear only when configured, in order, with save_memory gated', async () => {
    expect(createMemoryToolset({}).map((tool) => tool.name)).toEqual([]);
    const tools = createMemoryToolset({
      memory: createInMemoryMemoryBackend(),
      knowledgeBase: {
        kind: 'test',
        search: async () => [{ text: 'Refunds take 5 days.', source: 'faq.md' }],
      },
    });
    expect(tools.map((tool) => [tool.name, tool.policy.riskLevel])).toEqual([
      ['search_knowledge_base', 'low'],
      ['load_memory', 'low'],
      ['save_memory', 'medium'],
    ]);
    const strict = createToolGateway({ env: {} });
    expect(
      isApprovalRequired(await strict.invoke(named(tools, 'save_memory'), { content: 'x' })),
    ).toBe(true);
    expect(
      await gateway.invoke(named(tools, 'search_knowledge_base'), { query: 'refund' }),
    ).toMatchObject({
      ok: true,
      results: [{ text: 'Refunds take 5 days.', source: 'faq.md' }],
    });
  });

  it('a full disk or a refused permission in the store is said as such, without its path', async () => {
    const errno = (code: string) =>
      Object.assign(new Error(`${code}: failed, open '/srv/ksadk data/memory/acme.jsonl'`), {
        code,
      });
    let next = 'ENOSPC';
    const memory: MemoryBackend = {
      ...createInMemoryMemoryBackend(),
      save: async () => Promise.reject(errno(next)),
      search: async () => Promise.reject(errno(next)),
    };
    const tools = createMemoryToolset({ memory });
    const saved = await as('A', 'u', () =>
      gateway.invoke(named(tools, 'save_memory'), { content: 'x' }),
    );
    expect(saved).toMatchObject({ ok: false, status: 'failed', error_type: 'no_space_left' });
    next = 'EACCES';
    const loaded = await as('A', 'u', () => gateway.invoke(named(tools, 'load_memory'), {}));
    expect(loaded).toMatchObject({ ok: false, error_type: 'permission_denied' });
    next = 'EIO';
    const other = await as('A', 'u', () => gateway.invoke(named(tools, 'load_memory'), {}));
    expect(other).toMatchObject({ ok: false, error_type: 'memory_error' });
    expect(JSON.stringify([saved, loaded, other])).not.toMatch(/srv|ksadk data/);
  });

  it('saves and loads by relevance; account A never sees account B', async () => {
    const tools = createMemoryToolset({ memory: createInMemoryMemoryBackend() });
    await as('A', 'u', () =>
      gateway.invoke(named(tools, 'save_memory'), { content: 'Prefers tea over coffee' }),
    );
    await as('A', 'u', () =>
      gateway.invoke(named(tools, 'save_memory'), { content: 'Lives in Oslo' }),
    );
    await as('B', 'u', () =>
      gateway.invoke(named(tools, 'save_memory'), { content: 'B secret: prefers coffee' }),
    );
    const a = await as('A', 'u', () =>
      gateway.invoke(named(tools, 'load_memory'), { query: 'coffee or tea?' }),
    );
    expect((a['memories'] as { content: string }[]).map((m) => m.content)).toEqual([
      'Prefers tea over coffee',
    ]);
    const aAll = await as('A', 'u', () => gateway.invoke(named(tools, 'load_memory'), {}));
    expect(aAll['count']).toBe(2);
    expect(JSON.stringify(aAll)).not.toContain('B secret');
    const otherUser = await as('A', 'v', () =>
      gateway.invoke(named(tools, 'load_memory'), { query: 'coffee' }),
    );
    expect(otherUser['count']).toBe(0);
  });

  it('the file store survives a process restart', async () => {
    const here = fileURLToPath(new URL('.', import.meta.url));
    const script = `
      import { createFileMemoryBackend } from ${JSON.stringify(path.join(here, '../../memory/memory-stores.ts'))};
      const store = createFileMemoryBackend({ dir: ${JSON.stringify(dir)} });
      await store.save({ accountId: 'acme', userId: 'ann' }, { content: 'user_name: 张三', sessionId: 's9' });
    `;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const store = createFileMemoryBackend({ dir });
    const found = await store.search({ accountId: 'acme', userId: 'ann' }, '张三', 5);
    expect(found.map((m) => [m.content, m.session_id])).toEqual([['user_name: 张三', 's9']]);
    expect(await store.search({ accountId: 'other', userId: 'ann' }, '张三', 5)).toEqual([]);
    expect(await readdir(dir)).toEqual(['acme']);
  });

  it('keeps at most the configured number of records per scope', async () => {
    const store = createFileMemoryBackend({ dir, maxRecordsPerScope: 3 });
    const scope = { accountId: 'a', userId: 'u' };
    for (let i = 0; i < 5; i += 1) await store.save(scope, { content: `fact ${i}` });
    expect((await store.search(scope, '', 10)).map((m) => m.content)).toEqual([
      'fact 4',
      'fact 3',
      'fact 2',
    ]);
  });

  it('through the dispatcher: describe shows a string content argument; {key, value} is saved as "key: value"; failures propagate', async () => {
    const saved: { content: string; agentId?: string; sessionId?: string }[] = [];
    const recording: MemoryBackend = {
      kind: 'test',
      async save(_scope, entry) {
        saved.push(entry);
        return { id: 'mem_1', content: entry.content, created_at: new Date(0).toISOString() };
      },
      async search() {
        return [];
      },
    };
    const catalog = createToolCatalog({ workspace: false, env: {} });
    catalog.registerToolset('memory', createMemoryToolset({ memory: recording }));
    const [dispatcher] = catalog.getTools({ mode: 'dispatcher' });
    const described = await gateway.invoke(dispatcher!, {
      action: 'describe',
      tool_name: 'save_memory',
    });
    expect((described['tool'] as { args: { content: { type: string } } }).args.content.type).toBe(
      'string',
    );
    const result = await as('A', 'u', () =>
      gateway.invoke(dispatcher!, {
        action: 'call',
        tool_name: 'save_memory',
        arguments: { key: 'user_name', value: '张三' },
      }),
    );
    expect(result).toMatchObject({
      ok: true,
      tool_name: 'save_memory',
      result: { ok: true, status: 'persisted' },
    });
    expect(saved).toEqual([{ content: 'user_name: 张三', sessionId: 's1', agentId: 'agent-1' }]);
    const failing = createToolCatalog({ workspace: false, env: {} });
    failing.registerToolset(
      'memory',
      createMemoryToolset({
        memory: {
          kind: 'x',
          save: async () => Promise.reject(new Error('disk full')),
          search: async () => [],
        },
      }),
    );
    const [failingDispatcher] = failing.getTools({ mode: 'dispatcher' });
    const failed = await gateway.invoke(failingDispatcher!, {
      action: 'call',
      tool_name: 'save_memory',
      arguments: { content: 'x' },
    });
    expect(failed).toMatchObject({
      ok: false,
      tool_name: 'save_memory',
      error_message: expect.stringContaining('disk full'),
    });
  });

  it('reads KSADK_LTM_BACKEND and reports a dataset without a client', () => {
    expect(memoryToolsetFromEnv({ env: {} }).tools).toEqual([]);
    const fromEnv = memoryToolsetFromEnv({
      env: { KSADK_LTM_BACKEND: 'file', KSADK_LTM_DIR: dir, KSADK_KB_DATASET_ID: 'ds-1' },
    });
    expect(fromEnv.tools.map((tool) => tool.name)).toEqual(['load_memory', 'save_memory']);
    expect(fromEnv.memory?.kind).toBe('file');
    expect(fromEnv.problems).toEqual([
      expect.stringContaining('KSADK_KB_DATASET_ID is set but no knowledge base client'),
    ]);
    expect(() => memoryToolsetFromEnv({ env: { KSADK_LTM_BACKEND: 'mongodb' } })).toThrowError(
      /KSADK_LTM_BACKEND must be one of/,
    );
    // A server-backed backend is named at once and opened on first use.
    const shared = memoryToolsetFromEnv({
      env: { KSADK_LTM_BACKEND: 'postgresql', KSADK_LTM_URL: 'postgres://u:pw@127.0.0.1:1/db' },
    });
    expect(shared.memory?.kind).toBe('postgres');
    expect(() =>
      memoryToolsetFromEnv({ env: { KSADK_LTM_BACKEND: 'redis', KSADK_LTM_URL: 'not a url' } }),
    ).toThrowError(/KSADK_LTM_URL must be a connection URL/);
  });
});

/** Deterministic words: `w` + base-36 of a pseudo-random number (MINSTD) below `range`. */
function words(seed: number, count: number, range: number): string[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 48_271) % 2_147_483_647;
    return `w${(state % range).toString(36)}`;
  });
}

/** 5,000 memories of ~1,900 characters each (300 words from a 50,000-word vocabulary). */
const MEMORIES = Array.from({ length: 5000 }, (_, index) =>
  words(index + 1, 300, 50_000).join(' '),
);
/** A query of exactly the maximum length, with far more than 64 distinct words. */
const MAX_QUERY = words(7, 1000, 50_000).join(' ').slice(0, MEMORY_QUERY_MAX_CHARS);

/**
 * The longest time the event loop went without running a 5 ms interval while `work` ran, counting
 * only time this process spent on the CPU: a gap while the machine ran something else (a loaded CI
 * runner with two cores) is not a stall of ours. The CPU time counts every thread of the process,
 * so a gap is never under-counted for work the collector did beside the loop.
 */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let longest = 0;
  const measure = (): void => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longest = Math.max(longest, Math.min(now - last, (cpu.user + cpu.system) / 1000));
    last = now;
    lastCpu = process.cpuUsage();
  };
  const probe = setInterval(measure, 5);
  try {
    const result = await work();
    measure();
    return { result, stallMs: longest };
  } finally {
    clearInterval(probe);
  }
}

describe('load_memory stays responsive', () => {
  const scope: MemoryScope = { accountId: 'A', userId: 'u' };

  it('rejects a query over 2,000 characters with invalid_arguments, and its description says so', async () => {
    const [load] = createMemoryToolset({ memory: createInMemoryMemoryBackend() });
    expect(load!.description).toContain('2000 characters');
    expect(load!.description).toContain('64 distinct words');
    const tooLong = await as('A', 'u', () =>
      gateway.invoke(load!, { query: 'x'.repeat(MEMORY_QUERY_MAX_CHARS + 1) }),
    );
    expect(tooLong).toMatchObject({ ok: false, error_type: 'invalid_arguments' });
    const longest = await as('A', 'u', () =>
      gateway.invoke(load!, { query: 'x'.repeat(MEMORY_QUERY_MAX_CHARS) }),
    );
    expect(longest).toMatchObject({ ok: true, count: 0 });
  });

  it('ranks by the first 64 distinct query terms only', async () => {
    const memory = createInMemoryMemoryBackend();
    await memory.save(scope, { content: 'Prefers coffee' });
    expect(await memory.search(scope, 'coffee', 5)).toHaveLength(1);
    const padded = `${words(3, 64, 1_000_000).join(' ')} coffee`;
    expect(new Set(padded.split(' ')).size).toBe(65);
    expect(await memory.search(scope, padded, 5)).toEqual([]);
  });

  it.each([
    ['in-memory', 'memory'],
    ['file', 'file'],
  ] as const)(
    'over 5,000 memories (%s backend) a max-length query never stalls the event loop for 250 ms',
    { timeout: 60_000 },
    async (_name, kind) => {
      let memory: MemoryBackend;
      if (kind === 'memory') {
        memory = createInMemoryMemoryBackend();
        for (const content of MEMORIES) await memory.save(scope, { content });
      } else {
        memory = createFileMemoryBackend({ dir });
        const file = memoryFileOf(dir, scope);
        await mkdir(path.dirname(file), { recursive: true });
        const stamp = new Date(0).toISOString();
        await writeFile(
          file,
          MEMORIES.map((content, index) =>
            JSON.stringify({ id: `mem_${index}`, content, created_at: stamp }),
          ).join('\n') + '\n',
        );
      }
      const [load] = createMemoryToolset({ memory });
      // The first search over a file parses and indexes it; the second uses the cache.
      for (let round = 0; round < 2; round += 1) {
        const { result, stallMs } = await longestStall(() =>
          as('A', 'u', () => gateway.invoke(load!, { query: MAX_QUERY })),
        );
        expect(result).toMatchObject({ ok: true, count: 5 });
        expect(stallMs).toBeLessThan(250);
      }
    },
  );

  it('a load_memory call past its 1 s timeout returns tool_timeout on time and the ranking stops', {
    timeout: 20_000,
  }, async () => {
    const inner = createInMemoryMemoryBackend();
    for (const content of MEMORIES) await inner.save(scope, { content });
    let stoppedAt: number | undefined;
    let stopReason: unknown;
    // A slow backend: it ranks over and over (for at most 10 s) until its signal aborts.
    const slow: MemoryBackend = {
      kind: 'slow',
      save: (saveScope, entry) => inner.save(saveScope, entry),
      async search(searchScope, query, limit, options) {
        const started = performance.now();
        try {
          while (performance.now() - started < 10_000)
            await inner.search(searchScope, query, limit, options);
          return [];
        } catch (error) {
          stopReason = error;
          throw error;
        } finally {
          stoppedAt = performance.now();
        }
      },
    };
    const [load] = createMemoryToolset({ memory: slow });
    const started = performance.now();
    const result = await as('A', 'u', () =>
      gateway.invoke(load!, { query: MAX_QUERY }, { timeoutMs: 1000 }),
    );
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(3000);
    await vi.waitFor(() => expect(stoppedAt).toBeDefined(), { timeout: 5000 });
    expect(stoppedAt! - started).toBeLessThan(3000);
    expect(stopReason).toBeInstanceOf(Error);
  });
});
