import { createToolGateway, defineTool, isApprovalRequired, KsadkError } from '@ksadk/core';
import { checkApprovalStore } from '@ksadk/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createRedisApprovalStore } from './redis-approval-store.js';
import {
  describeWithRedis,
  freePort,
  testApprovalRecord as record,
  redisUrl,
  runFixture,
  uniquePrefix,
} from './test-support.js';

describeWithRedis('Redis approval store', () => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => client?.quit());

  it('passes the approval store conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkApprovalStore((quotas) =>
      createRedisApprovalStore({ client, keyPrefix: uniquePrefix(), ...quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('1,000 concurrent consumes of one grant from 4 processes: exactly one succeeds', {
    timeout: 60_000,
  }, async () => {
    const keyPrefix = uniquePrefix();
    const store = createRedisApprovalStore({ client, keyPrefix });
    const grant = record();
    await store.create(grant);
    await store.transition(grant.id, 'pending', 'approved', { decidedAt: Date.now() });
    const startAt = String(Date.now() + 4_000);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runFixture('consume-grant.mjs', [redisUrl, keyPrefix, grant.id, '250', startAt]),
      ),
    );
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    expect(runs.reduce((sum, run) => sum + Number(run.stdout.trim()), 0)).toBe(1);
    expect(await store.get(grant.id)).toMatchObject({ status: 'consumed', arguments: {} });
  });

  it('keys expire with the approval, and the indexes forget expired records', async () => {
    const keyPrefix = uniquePrefix();
    const store = createRedisApprovalStore({ client, keyPrefix });
    const base = `${keyPrefix}{${keyPrefix}approvals}:`;
    const short = [
      record({ expiresAt: Date.now() + 1_500 }),
      record({ sessionId: 's2', expiresAt: Date.now() + 1_500 }),
    ];
    for (const made of short) await store.create(made);
    const ttl = await client.pttl(`${base}rec:${short[0]!.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_500);
    expect(await client.pttl((await client.keys(`${base}bind:*`))[0]!)).toBeGreaterThan(0);
    // A consumed grant stays as a tombstone without arguments until it expires.
    await store.transition(short[0]!.id, 'pending', 'approved');
    await store.transition(short[0]!.id, 'approved', 'consumed');
    expect(await client.hget(`${base}rec:${short[0]!.id}`, 'args')).toBe('{}');
    expect(await client.hget(`${base}used`, 'total')).toBe('16');
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect(await client.exists(`${base}rec:${short[0]!.id}`, `${base}rec:${short[1]!.id}`)).toBe(0);
    // The next create prunes them from every index.
    const live = record({ sessionId: 's3' });
    await store.create(live);
    expect(await client.hkeys(`${base}meta`)).toEqual([live.id]);
    expect(await client.zrange(`${base}expiry`, '0', '-1')).toEqual([live.id]);
    const used = await client.hgetall(`${base}used`);
    expect(
      Object.keys(used)
        .map((field) => field.slice(0, 5))
        .sort(),
    ).toEqual(['acct:', 'sess:', 'total']);
    expect(Object.values(used)).toEqual(['16', '16', '16']);
    expect(await client.zrange(`${base}all`, '0', '-1')).toEqual([live.id]);
    // rec, bind, sess + its undecided index, acct + its undecided index, all, expiry, meta, used, seq
    expect((await client.keys(`${keyPrefix}*`)).length).toBe(11);
  });

  it('two gateways on one Redis share requests, and a grant is used once across them', async () => {
    const keyPrefix = uniquePrefix();
    const secret = 'a shared approval secret for the test';
    const writes: string[] = [];
    const writeNote = defineTool({
      name: 'write_note',
      description: 'Writes a note.',
      input: z.object({ text: z.string() }),
      policy: { riskLevel: 'high', sideEffects: ['write'] },
      execute: ({ text }) => {
        writes.push(text);
        return { ok: true };
      },
    });
    const stores = [0, 1].map(() => createRedisApprovalStore({ url: redisUrl, keyPrefix }));
    const [one, two] = stores.map((approvalStore) =>
      createToolGateway({ approvalStore, approvalSecret: secret, approvalMode: 'ask', env: {} }),
    );
    const first = await one!.invoke(writeNote, { text: 'hi' });
    if (!isApprovalRequired(first)) throw new Error('expected an approval request');
    const grant = await two!.approve(first.approval_request.id);
    expect((await two!.invoke(writeNote, { text: 'hi' }, { approval: grant })).ok).toBe(true);
    expect((await one!.invoke(writeNote, { text: 'hi' }, { approval: grant })).ok).toBe(false);
    expect(writes).toEqual(['hi']);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('refuses bad options', () => {
    expect(() => createRedisApprovalStore({})).toThrow(/exactly one of `client` and `url`/);
    expect(() => createRedisApprovalStore({ client, url: redisUrl })).toThrow(KsadkError);
    expect(() => createRedisApprovalStore({ client, keyPrefix: 'a{b}' })).toThrow(/keyPrefix/);
    expect(() => createRedisApprovalStore({ client, perSesion: {} } as never)).toThrow(
      /did you mean "perSession"/,
    );
  });

  it('a store that is given a client leaves it open on close', async () => {
    const store = createRedisApprovalStore({ client, keyPrefix: uniquePrefix() });
    await store.close();
    expect(await client.ping()).toBe('PONG');
  });
});

it('a Redis that is down fails fast with store_unavailable and no password in the message', {
  timeout: 20_000,
}, async () => {
  const port = await freePort();
  const store = createRedisApprovalStore({
    url: `redis://:hunter2-password@127.0.0.1:${port}`,
    timeoutMs: 3_000,
  });
  const started = Date.now();
  const outcome = await store.get('appr_x').then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(KsadkError.isInstance(outcome)).toBe(true);
  const error = outcome as KsadkError;
  expect(error.code).toBe('store_unavailable');
  expect(error.message).not.toContain('hunter2');
  expect(error.message).not.toContain('redis://');
  expect(JSON.stringify(error.details)).not.toContain('hunter2');
  await expect(
    store.create(record()).then(
      () => undefined,
      (e: KsadkError) => e.code,
    ),
  ).resolves.toBe('store_unavailable');
  await store.close();
});
