import { KsadkError } from '@ksadk/core';
import { checkMemoryBackend } from '@ksadk/core/testing';
import { Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresMemoryBackend } from './postgres-memory-backend.js';
import { describeWithPostgres, postgresUrl, runFixture, uniqueSchema } from './test-support.js';

describeWithPostgres('PostgreSQL memory backend', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: postgresUrl, max: 20 });
  });
  afterAll(() => pool?.end());

  it('passes the memory backend conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkMemoryBackend((limits) =>
      createPostgresMemoryBackend({ pool, schema: uniqueSchema(), ...limits }),
    );
    expect(failures).toEqual([]);
  });

  it('two processes saving at once lose no record', { timeout: 60_000 }, async () => {
    const schema = uniqueSchema();
    const startAt = String(Date.now() + 5_000);
    const runs = await Promise.all(
      [0, 1].map((worker) =>
        runFixture('save-memories.mjs', [postgresUrl, schema, String(worker), '60', startAt]),
      ),
    );
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    const acknowledged = runs.flatMap((run) =>
      run.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    );
    expect(acknowledged).toHaveLength(120);
    const memory = createPostgresMemoryBackend({ pool, schema });
    const stored = await memory.search({ accountId: 'acme', userId: 'shared' }, '', 500);
    expect(stored.map((record) => record.id).sort()).toEqual(acknowledged.sort());
  });

  it('hostile scopes and content stay in their scope and are stored as data', {
    timeout: 60_000,
  }, async () => {
    const memory = createPostgresMemoryBackend({ pool, schema: uniqueSchema() });
    const hostile = [
      "x'); DELETE FROM ksadk_memories; --",
      'acme\u0000alice',
      '%',
      '__proto__',
      '😀',
      'a'.repeat(100_000),
    ];
    for (const id of hostile) {
      await memory.save(
        { accountId: id, userId: id },
        { content: `${id} secret`, metadata: { id } },
      );
    }
    for (const id of hostile) {
      const found = await memory.search({ accountId: id, userId: id }, '', 10);
      expect(found.map((record) => record.content)).toEqual([`${id} secret`]);
      expect(found[0]?.metadata).toEqual({ id });
      expect(await memory.search({ accountId: id, userId: `${id} ` }, 'secret', 10)).toEqual([]);
    }
    const { rows } = await pool.query('SELECT 1'); // the database is still there
    expect(rows).toHaveLength(1);
  });

  it('without pgvector an embed function is not used, and search is full-text', async () => {
    let calls = 0;
    const memory = createPostgresMemoryBackend({
      pool,
      schema: uniqueSchema(),
      embed: async () => {
        calls += 1;
        return [1, 0, 0];
      },
    });
    const { rows } = await pool.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
    expect(rows).toEqual([]); // this server has no pgvector: the fallback is what runs here
    expect(await memory.searchMethod()).toBe('full_text');
    await memory.save({ accountId: 'a', userId: 'u' }, { content: 'likes green tea' });
    expect((await memory.search({ accountId: 'a', userId: 'u' }, 'tea', 5))[0]?.content).toBe(
      'likes green tea',
    );
    expect(calls).toBe(0);
  });

  it('an abort during a search rejects at once with the reason', async () => {
    const memory = createPostgresMemoryBackend({ pool, schema: uniqueSchema() });
    const scope = { accountId: 'a', userId: 'u' };
    await memory.save(scope, { content: 'fact' });
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const pending = memory.search(scope, 'fact', 5, { signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('refuses bad options', () => {
    expect(() => createPostgresMemoryBackend({ pool, maxRecordsPerScope: 1.5 })).toThrow(
      KsadkError,
    );
    expect(() => createPostgresMemoryBackend({ pool, schema: 'x;y' })).toThrow(/schema must be/);
  });
});

it('a PostgreSQL that is down fails with store_unavailable within the bound', {
  timeout: 20_000,
}, async () => {
  const memory = createPostgresMemoryBackend({
    connectionString: 'postgres://ksadk:pa55word-secret@127.0.0.1:1/postgres',
    timeoutMs: 4_000,
  });
  const started = Date.now();
  const error = await memory
    .save({ accountId: 'a', userId: 'b' }, { content: 'x' })
    .catch((e: unknown) => e);
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(error).toMatchObject({ code: 'store_unavailable' });
  expect(String((error as Error).message)).not.toContain('pa55word');
  await memory.close();
});
