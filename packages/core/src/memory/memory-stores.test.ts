import {
  appendFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runFixtureProcess } from '../../../../test-support/run-fixture.js';
import type { MemoryRecord, MemoryScope } from './memory-backend.js';
import { memoryFileOf } from './memory-file.js';
import { parseMemoryRecord } from './memory-record.js';
import { createFileMemoryBackend } from './memory-stores.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-mem-store-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const FIXTURE = new URL('./fixtures/save-memories.mjs', import.meta.url);
const CORE_DIR = new URL('../..', import.meta.url);
const scope: MemoryScope = { accountId: 'acme', userId: 'shared@example.com' };

/** Runs one writer process; resolves with its output whatever its exit. */
const runWriter = (worker: number, count: number, max: number) =>
  // Four cold `node` processes on a machine running the whole CI: a wide bound.
  runFixtureProcess(FIXTURE, [dir, String(worker), String(count), String(max)], CORE_DIR, 50_000);

/** Every line of the scope's file, parsed; `undefined` marks a corrupt or non-record line. */
async function fileLines(): Promise<(MemoryRecord | undefined)[]> {
  const text = await readFile(memoryFileOf(dir, scope), 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n').map(parseMemoryRecord);
}

const stamp = '2025-01-01T00:00:00.000Z';
const line = (record: object): string => `${JSON.stringify(record)}\n`;

describe('file memory backend', () => {
  it('four processes appending to one memory folder lose no acknowledged record and write no corrupt line', {
    timeout: 60_000,
  }, async () => {
    const workers = 4;
    const count = 24;
    const max = 20;
    const runs = await Promise.all(
      Array.from({ length: workers }, (_, worker) => runWriter(worker, count, max)),
    );
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    const acknowledged = runs.flatMap((run) =>
      run.stdout
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as { id: string; created_at: string }),
    );
    expect(acknowledged).toHaveLength(workers * count);

    const lines = await fileLines();
    expect(lines.filter((record) => record === undefined)).toEqual([]);
    const kept = lines as MemoryRecord[];
    expect(kept).toHaveLength(max);
    const acknowledgedIds = new Set(acknowledged.map((record) => record.id));
    expect(kept.filter((record) => !acknowledgedIds.has(record.id))).toEqual([]);
    // The newest `max` acknowledged records by creation (strictly newer than the max-th newest
    // stamp, so records sharing that millisecond may go either way) are all still there.
    const byCreation = acknowledged.map((record) => record.created_at).sort();
    const cutoff = byCreation[byCreation.length - max]!;
    const keptIds = new Set(kept.map((record) => record.id));
    const lost = acknowledged.filter(
      (record) => record.created_at > cutoff && !keptIds.has(record.id),
    );
    expect(lost).toEqual([]);
    // File order is creation order.
    const stamps = kept.map((record) => record.created_at);
    expect(stamps).toEqual([...stamps].sort());

    const store = createFileMemoryBackend({ dir, maxRecordsPerScope: max });
    const last = await store.save(scope, { content: 'the final save' });
    const after = await fileLines();
    expect(after.filter((record) => record === undefined)).toEqual([]);
    expect(after.length).toBeLessThanOrEqual(max);
    expect(after.at(-1)?.id).toBe(last.id);
    // No lock or temporary file is left behind.
    expect(await readdir(path.dirname(memoryFileOf(dir, scope)))).toEqual([
      path.basename(memoryFileOf(dir, scope)),
    ]);
  });

  it('a torn last line (a crash mid-append) is skipped and the next save still lands whole on its own line', async () => {
    const store = createFileMemoryBackend({ dir });
    await store.save(scope, { content: 'first fact' });
    await appendFile(memoryFileOf(dir, scope), '{"id":"mem_torn","content":"half writ');
    expect((await store.search(scope, '', 10)).map((m) => m.content)).toEqual(['first fact']);
    const second = await store.save(scope, { content: 'second fact' });
    expect((await store.search(scope, 'fact', 10)).map((m) => m.content)).toEqual([
      'second fact',
      'first fact',
    ]);
    const lines = await fileLines();
    expect(lines.map((record) => record?.content)).toEqual([
      'first fact',
      undefined,
      'second fact',
    ]);
    expect(lines[2]?.id).toBe(second.id);
  });

  it('lines that are JSON but not a memory record are skipped, never fatal', async () => {
    const file = memoryFileOf(dir, scope);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(
      file,
      [
        line({ id: 'mem_a', content: 'kept fact one', created_at: stamp }),
        'null\n42\n[]\n{}\n"text"\ntrue\nnot json at all\n',
        line({ id: 1, content: 'fact with a numeric id', created_at: stamp }),
        line({ id: 'mem_b', content: { fact: 'object content' }, created_at: stamp }),
        line({ id: 'mem_c', content: 'fact without a date' }),
        '{"__proto__":{"polluted":"yes"},"id":"mem_p","content":"fact proto","created_at":"2025-01-01T00:00:00.000Z"}\n',
        '{"id":"mem_q","content":"fact nested proto","created_at":"2025-01-01T00:00:00.000Z","metadata":{"__proto__":{"polluted":"yes"}}}\n',
        line({ id: 'mem_d', content: 'kept fact two', created_at: stamp, metadata: [1] }),
      ].join(''),
    );
    const store = createFileMemoryBackend({ dir, maxRecordsPerScope: 3 });
    expect((await store.search(scope, 'fact', 10)).map((m) => m.id)).toEqual(['mem_d', 'mem_a']);
    expect((await store.search(scope, '', 10)).map((m) => m.id)).toEqual(['mem_d', 'mem_a']);
    expect((await store.search(scope, 'proto', 10)).map((m) => m.id)).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    // A save still works, and compaction keeps records only.
    await store.save(scope, { content: 'kept fact three' });
    await store.save(scope, { content: 'kept fact four' });
    const lines = await fileLines();
    expect(lines.map((record) => record?.content)).toEqual([
      'kept fact two',
      'kept fact three',
      'kept fact four',
    ]);
    expect(lines[0]).toEqual({ id: 'mem_d', content: 'kept fact two', created_at: stamp });
  });

  it('a search never serves a stale or half-read view when another process appends or compacts', async () => {
    const reader = createFileMemoryBackend({ dir, maxRecordsPerScope: 3 });
    const writer = createFileMemoryBackend({ dir, maxRecordsPerScope: 3 }); // its own cache, like another process
    const contents = async (): Promise<string[]> =>
      (await reader.search(scope, '', 10)).map((m) => m.content).reverse();
    await reader.save(scope, { content: 'fact 1' });
    await reader.save(scope, { content: 'fact 2' });
    expect(await contents()).toEqual(['fact 1', 'fact 2']);
    await writer.save(scope, { content: 'fact 3' }); // an append
    expect(await contents()).toEqual(['fact 1', 'fact 2', 'fact 3']);
    await writer.save(scope, { content: 'fact 4' }); // a compaction
    expect(await contents()).toEqual(['fact 2', 'fact 3', 'fact 4']);
    await writer.save(scope, { content: 'fact 5' });
    await writer.save(scope, { content: 'fact 6' });
    expect(await contents()).toEqual(['fact 4', 'fact 5', 'fact 6']);
    // An append seen half-way through: the unfinished line is picked up once it is complete.
    const file = memoryFileOf(dir, scope);
    const half = line({ id: 'mem_half', content: 'fact 7', created_at: stamp });
    await appendFile(file, half.slice(0, 20));
    expect(await contents()).toEqual(['fact 4', 'fact 5', 'fact 6']);
    await appendFile(file, half.slice(20));
    expect(await contents()).toEqual(['fact 4', 'fact 5', 'fact 6', 'fact 7']);
    expect((await writer.search(scope, '', 10)).map((m) => m.content)).toEqual([
      'fact 7',
      'fact 6',
      'fact 5',
      'fact 4',
    ]);
  });

  it('a writer waits for a held lock and takes over the stale lock of a crashed process', async () => {
    const store = createFileMemoryBackend({ dir });
    await store.save(scope, { content: 'fact 1' });
    const lock = `${memoryFileOf(dir, scope)}.lock`;
    // Held by a live process: the save waits until it is released.
    await mkdir(lock);
    let saved = false;
    const pending = store.save(scope, { content: 'fact 2' }).then(() => {
      saved = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(saved).toBe(false);
    await rm(lock, { recursive: true });
    await pending;
    // Left by a crashed process (untouched for a minute): taken over at once.
    await mkdir(lock);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const started = performance.now();
    await store.save(scope, { content: 'fact 3' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await store.search(scope, '', 10)).map((m) => m.content)).toEqual([
      'fact 3',
      'fact 2',
      'fact 1',
    ]);
  });
});
