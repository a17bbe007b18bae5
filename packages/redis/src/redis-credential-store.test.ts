import { createHash } from 'node:crypto';
import {
  createToolGateway,
  defineTool,
  isCredentialRequired,
  KsadkError,
  runWithInvocationContext,
} from '@ksadk/core';
import { checkCredentialStore } from '@ksadk/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createRedisCredentialStore } from './redis-credential-store.js';
import { describeWithRedis, redisUrl, runFixture, uniquePrefix } from './test-support.js';

const KEY = 'one-credential-key-for-every-instance!';
const API_KEY = 'wx-live-secret-0123456789abcdef';

describeWithRedis('Redis credential store', () => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => client?.quit());

  it('passes the credential store conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkCredentialStore((quotas) =>
      createRedisCredentialStore({ client, keyPrefix: uniquePrefix(), quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('a key stored for account A in this process is used by a tool in another; account B is asked for its own', {
    timeout: 60_000,
  }, async () => {
    const keyPrefix = uniquePrefix();
    const store = createRedisCredentialStore({ client, keyPrefix });
    const gateway = createToolGateway({ env: {}, credentials: { key: KEY, store } });
    const weather = defineTool({
      name: 'weather',
      description: 'Weather for a city.',
      input: z.object({ city: z.string() }),
      credentials: [{ id: 'weather-api', kind: 'api_key', description: 'Your WeatherCo key' }],
      execute: async ({ city }, context) => {
        await context.credential('weather-api');
        return { ok: true, city };
      },
    });
    const alice = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };
    const first = await runWithInvocationContext(alice, () =>
      gateway.invoke(weather, { city: 'Oslo' }),
    );
    if (!isCredentialRequired(first)) throw new Error(JSON.stringify(first));
    await runWithInvocationContext(alice, () =>
      gateway.provideCredential(first.credential_request.id, { apiKey: API_KEY }),
    );

    const run = await runFixture('use-credential.mjs', [redisUrl, keyPrefix, KEY]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { a: unknown; aKey: string; b: unknown };
    expect(out.a).toMatchObject({ ok: true, city: 'Oslo' });
    expect(out.aKey).toBe(createHash('sha256').update(API_KEY).digest('hex'));
    expect(out.b).toMatchObject({
      ok: false,
      error_type: 'credential_required',
      credential_request: { credential_id: 'weather-api', kind: 'api_key' },
    });

    // Every key of the store is under its hash tag, and nothing holds the key in the clear.
    const keys = await client.keys(`${keyPrefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    const base = `${keyPrefix}{${keyPrefix}credentials}:`;
    for (const key of keys) {
      expect(key.startsWith(base)).toBe(true);
      const type = await client.type(key);
      const dump =
        type === 'string'
          ? await client.get(key)
          : type === 'hash'
            ? JSON.stringify(await client.hgetall(key))
            : type === 'set'
              ? JSON.stringify(await client.smembers(key))
              : JSON.stringify(await client.zrange(key, '0', '-1'));
      expect(dump).not.toContain(API_KEY);
      expect(key).not.toContain('acct-a');
    }
  });

  it('request keys expire with the request', async () => {
    const keyPrefix = uniquePrefix();
    const store = createRedisCredentialStore({ client, keyPrefix });
    const at = Date.now();
    await store.createRequest({
      id: 'creq_0123',
      accountId: 'a',
      userId: 'u',
      sessionId: 's',
      credentialId: 'c',
      kind: 'api_key',
      scopes: [],
      toolName: 't',
      callId: 'call',
      status: 'pending',
      createdAt: at,
      expiresAt: at + 30_000,
    });
    const keys = await client.keys(`${keyPrefix}*`);
    for (const key of keys.filter((item) => !item.endsWith(':seq'))) {
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(20_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
    }
    expect(keys.length).toBe(4);
  });

  it('refuses bad options', () => {
    expect(() => createRedisCredentialStore({ client, keyPrefix: '{x}' })).toThrow(KsadkError);
    expect(() => createRedisCredentialStore({ url: '' })).toThrow(/exactly one/);
    expect(() => createRedisCredentialStore({ client, timeoutMs: 0 })).toThrow(/positive/);
    expect(() => createRedisCredentialStore({ client, unknown: true } as never)).toThrow(
      KsadkError,
    );
  });
});

it('a Redis that is down fails with store_unavailable, without the password', {
  timeout: 20_000,
}, async () => {
  const store = createRedisCredentialStore({
    url: 'redis://user:pa55word-secret@127.0.0.1:1',
    timeoutMs: 2_000,
  });
  const error = await store
    .getCredential({ accountId: 'a', userId: 'b', credentialId: 'c' })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'store_unavailable' });
  expect(String((error as Error).message)).not.toContain('pa55word');
  await store.close();
});
