import { KsadkError } from '@ksadk/core';
import { checkMemoryBackend } from '@ksadk/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisMemoryBackend } from './redis-memory-backend.js';
import { describeWithRedis, redisUrl, uniquePrefix } from './test-support.js';

describeWithRedis('Redis memory backend', () => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => client?.quit());

  it('passes the memory backend conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkMemoryBackend((limits) =>
      createRedisMemoryBackend({ client, keyPrefix: uniquePrefix(), ...limits }),
    );
    expect(failures).toEqual([]);
  });

  it('keys name a hash of the scope, never the raw ids', async () => {
    const keyPrefix = uniquePrefix();
    const memory = createRedisMemoryBackend({ client, keyPrefix });
    await memory.save({ accountId: 'acme:*', userId: 'alice\r\nDEL x' }, { content: 'fact' });
    const keys = await client.keys(`${keyPrefix}*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(
      new RegExp(`^${keyPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}memory:[0-9a-f]{64}$`),
    );
  });

  it('skips list entries that are not memory records, a planted __proto__ key among them', async () => {
    const keyPrefix = uniquePrefix();
    const memory = createRedisMemoryBackend({ client, keyPrefix });
    const scope = { accountId: 'acme', userId: 'alice' };
    await memory.save(scope, { content: 'real fact' });
    const [key] = await client.keys(`${keyPrefix}*`);
    await client.rpush(
      key!,
      'not json',
      'null',
      '[]',
      '{"id":1,"content":"x","created_at":"y"}',
      '{"id":"mem_p","content":"proto fact","created_at":"2025-01-01T00:00:00.000Z","metadata":{"__proto__":{"polluted":1},"ok":true}}',
    );
    const found = await memory.search(scope, 'fact', 10);
    // core never writes a __proto__ key, so a record holding one was planted: it is skipped whole.
    expect(found.map((record) => record.content)).toEqual(['real fact']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('an abort during a search rejects at once with the reason', async () => {
    const memory = createRedisMemoryBackend({ client, keyPrefix: uniquePrefix() });
    const scope = { accountId: 'a', userId: 'u' };
    await memory.save(scope, { content: 'fact' });
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const pending = memory.search(scope, 'fact', 5, { signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('refuses bad options', () => {
    expect(() => createRedisMemoryBackend({ client, maxRecordsPerScope: 0 })).toThrow(KsadkError);
    expect(() => createRedisMemoryBackend({ url: '' })).toThrow(/exactly one/);
  });
});

it('a Redis that is down fails with store_unavailable within the bound', {
  timeout: 20_000,
}, async () => {
  const memory = createRedisMemoryBackend({
    url: 'redis://user:pa55word-secret@127.0.0.1:1',
    timeoutMs: 2_000,
  });
  const started = Date.now();
  const error = await memory
    .search({ accountId: 'a', userId: 'b' }, 'x', 5)
    .catch((e: unknown) => e);
  expect(Date.now() - started).toBeLessThan(6_000);
  expect(error).toMatchObject({ code: 'store_unavailable' });
  expect(String((error as Error).message)).not.toContain('pa55word');
  const saveError = await memory
    .save({ accountId: 'a', userId: 'b' }, { content: 'x' })
    .catch((e: unknown) => e);
  expect(saveError).toMatchObject({ code: 'store_unavailable' });
  await memory.close();
});
