import { type ExecutionRecord, KsadkError } from '@ksadk/core';
import { checkExecutionStore } from '@ksadk/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisExecutionStore } from './redis-execution-store.js';
import { describeWithRedis, redisUrl, uniquePrefix } from './test-support.js';

let next = 0;
/** A fresh `started` record of acct-a / s1, with overrides. */
function execution(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  next += 1;
  const at = Date.now();
  return {
    id: `exec_${String(next).padStart(32, '0')}`,
    callId: `call_${next}`,
    callIdGiven: true,
    toolName: 'write_note',
    argsDigest: 'd'.repeat(64),
    accountId: 'acct-a',
    userId: 'alice',
    sessionId: 's1',
    status: 'started',
    attempt: 1,
    startedAt: at,
    deadlineAt: at + 60_000,
    expiresAt: at + 60_000,
    ...overrides,
  };
}

describeWithRedis('Redis execution store', () => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => client?.quit());

  it('passes the execution store conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkExecutionStore((quotas) =>
      createRedisExecutionStore({ client, keyPrefix: uniquePrefix(), quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('keeps every key under its hash tag, ids only hashed, records expiring with the record', async () => {
    const keyPrefix = uniquePrefix();
    const store = createRedisExecutionStore({ client, keyPrefix });
    const record = execution({ accountId: 'acct-secret-name', sessionId: 'sess-secret-name' });
    await store.begin(record);
    await store.complete(record.id, { status: 'succeeded', endedAt: Date.now() });
    const keys = await client.keys(`${keyPrefix}*`);
    const base = `${keyPrefix}{${keyPrefix}executions}:`;
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key.startsWith(base)).toBe(true);
      expect(key).not.toContain('secret-name');
      expect(key).not.toContain(record.id);
      expect(key).not.toContain(record.callId);
    }
    for (const key of keys.filter((item) => /:(rec|call):/.test(item))) {
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    expect(keys.filter((item) => /:(rec|call):/.test(item))).toHaveLength(2);
  });

  it('a 64 KiB call id is one call like any other', async () => {
    const store = createRedisExecutionStore({ client, keyPrefix: uniquePrefix() });
    const callId = 'x'.repeat(64 * 1024);
    const first = execution({ callId });
    expect((await store.begin(first)).created).toBe(true);
    expect(await store.begin(execution({ callId }))).toEqual({ created: false, existing: first });
    expect(await store.findCall({ ...first, now: Date.now() })).toEqual(first);
    expect((await store.begin(execution({ callId: `${callId}y` }))).created).toBe(true);
  });

  it('a started record past its deadline (unknown) makes room; a running one does not', async () => {
    const store = createRedisExecutionStore({
      client,
      keyPrefix: uniquePrefix(),
      quotas: { perSession: 2 },
    });
    const stale = execution({ deadlineAt: Date.now() - 1 });
    const running = execution();
    await store.begin(stale);
    await store.begin(running);
    expect((await store.begin(execution())).created).toBe(true);
    expect(await store.get(stale.id)).toBeUndefined();
    expect(await store.get(running.id)).toEqual(running);
  });

  it('keeps inline results within the account quota: the oldest go, their records stay', async () => {
    const store = createRedisExecutionStore({
      client,
      keyPrefix: uniquePrefix(),
      quotas: { resultCharsPerAccount: 25 },
    });
    const ended = async (resultJson: string, accountId = 'acct-a') => {
      const record = execution({ accountId });
      await store.begin(record);
      return store.complete(record.id, { status: 'succeeded', endedAt: Date.now(), resultJson });
    };
    const first = await ended('{"n":1,"pad":"xx"}');
    const second = await ended('{"n":2}');
    const theirs = await ended('{"n":3,"pad":"xx"}', 'acct-b');
    expect(second?.resultJson).toBe('{"n":2}');
    expect((await store.get(first!.id))?.resultJson).toBe('{"n":1,"pad":"xx"}');
    const third = await ended('{"n":4,"pad":"yy"}');
    expect(third?.resultJson).toBe('{"n":4,"pad":"yy"}');
    const dropped = await store.get(first!.id);
    expect(dropped).toMatchObject({ status: 'succeeded' });
    expect(dropped?.resultJson).toBeUndefined();
    expect((await store.get(second!.id))?.resultJson).toBe('{"n":2}');
    expect((await store.get(theirs!.id))?.resultJson).toBe('{"n":3,"pad":"xx"}');
    const huge = await ended(`"${'x'.repeat(40)}"`);
    expect(huge).toMatchObject({ status: 'succeeded' });
    expect(huge?.resultJson).toBeUndefined();
  });

  it("a full store makes room from the caller's own ended records, never another account's", async () => {
    const store = createRedisExecutionStore({
      client,
      keyPrefix: uniquePrefix(),
      quotas: { total: 3 },
    });
    const theirs = [execution({ accountId: 'acct-b' }), execution({ accountId: 'acct-b' })];
    for (const record of theirs) {
      await store.begin(record);
      await store.complete(record.id, { status: 'succeeded', endedAt: Date.now() });
    }
    const mine = execution();
    await store.begin(mine);
    await expect(Promise.resolve(store.begin(execution()))).rejects.toMatchObject({
      code: 'execution_quota_exceeded',
    });
    await store.complete(mine.id, { status: 'succeeded', endedAt: Date.now() });
    expect((await store.begin(execution())).created).toBe(true);
    expect(await store.get(mine.id)).toBeUndefined();
    for (const record of theirs) expect(await store.get(record.id)).toBeDefined();
  });

  it("keeps inline results within the store quota too: anyone's oldest go first", async () => {
    const store = createRedisExecutionStore({
      client,
      keyPrefix: uniquePrefix(),
      quotas: { resultCharsPerAccount: 1_000, resultCharsTotal: 2_500 },
    });
    const ids: string[] = [];
    for (let account = 0; account < 5; account += 1) {
      const record = execution({ accountId: `acct-${account}` });
      ids.push(record.id);
      await store.begin(record);
      const resultJson = JSON.stringify({ ok: true, text: 'r'.repeat(880) });
      await store.complete(record.id, { status: 'succeeded', endedAt: Date.now(), resultJson });
    }
    const kept = await Promise.all(ids.map((id) => store.get(id)));
    expect(kept.every((record) => record?.status === 'succeeded')).toBe(true);
    expect(kept.map((record) => record?.resultJson !== undefined)).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
  });

  it('refuses bad options', () => {
    expect(() => createRedisExecutionStore({ client, keyPrefix: '{x}' })).toThrow(KsadkError);
    expect(() => createRedisExecutionStore({ url: '' })).toThrow(/exactly one/);
    expect(() => createRedisExecutionStore({ client, timeoutMs: 0 })).toThrow(/positive/);
    expect(() => createRedisExecutionStore({ client, quotas: { total: 0 } })).toThrow(KsadkError);
    expect(() => createRedisExecutionStore({ client, unknown: true } as never)).toThrow(KsadkError);
  });
});

it('a Redis that is down fails with store_unavailable, without the password', {
  timeout: 20_000,
}, async () => {
  const store = createRedisExecutionStore({
    url: 'redis://user:pa55word-secret@127.0.0.1:1',
    timeoutMs: 2_000,
  });
  const error = await Promise.resolve(store.begin(execution())).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'store_unavailable' });
  expect(String((error as Error).message)).not.toContain('pa55word');
  await store.close();
});
