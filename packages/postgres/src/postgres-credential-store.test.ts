import { createHash } from 'node:crypto';
import {
  createToolGateway,
  defineTool,
  isCredentialRequired,
  KsadkError,
  runWithInvocationContext,
} from '@ksadk/core';
import { checkCredentialStore } from '@ksadk/core/testing';
import { Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createPostgresCredentialStore } from './postgres-credential-store.js';
import {
  closedPort,
  describeWithPostgres,
  postgresUrl,
  runFixture,
  uniqueSchema,
} from './test-support.js';

const KEY = 'one-credential-key-for-every-instance!';
const API_KEY = 'wx-live-secret-0123456789abcdef';

describeWithPostgres('PostgreSQL credential store', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: postgresUrl });
  });
  afterAll(() => pool?.end());

  it('passes the credential store conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkCredentialStore((quotas) =>
      createPostgresCredentialStore({ pool, schema: uniqueSchema(), quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('a key stored for account A in this process is used by a tool in another; account B is asked for its own', {
    timeout: 60_000,
  }, async () => {
    const schema = uniqueSchema();
    const store = createPostgresCredentialStore({ pool, schema });
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

    const run = await runFixture('use-credential.mjs', [postgresUrl, schema, KEY]);
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

    // The rows hold the sealed value as the gateway gave it, never the key in the clear.
    const { rows } = await pool.query(`SELECT * FROM "${schema}".ksadk_credentials`);
    expect(rows).toHaveLength(1);
    const [stored] = await store.listCredentials({ accountId: 'acct-a' });
    expect(rows[0]).toMatchObject({
      sealed_key_id: stored!.sealed.keyId,
      sealed_data: stored!.sealed.data,
    });
    const { rows: asked } = await pool.query(`SELECT * FROM "${schema}".ksadk_credential_requests`);
    expect(asked.length).toBe(2);
    expect(JSON.stringify([rows, asked])).not.toContain(API_KEY);
  });

  it('refuses bad options', () => {
    expect(() => createPostgresCredentialStore({ pool, schema: 'Bad-Name' })).toThrow(KsadkError);
    expect(() => createPostgresCredentialStore({ connectionString: '' })).toThrow(/exactly one/);
    expect(() => createPostgresCredentialStore({ pool, timeoutMs: 0 })).toThrow(/positive/);
    expect(() => createPostgresCredentialStore({ pool, unknown: true } as never)).toThrow(
      KsadkError,
    );
  });
});

it('a PostgreSQL that is down fails with store_unavailable, without the password', {
  timeout: 20_000,
}, async () => {
  const store = createPostgresCredentialStore({
    connectionString: `postgres://user:pa55word-secret@127.0.0.1:${await closedPort()}/db`,
    timeoutMs: 2_000,
  });
  const error = await store
    .getCredential({ accountId: 'a', userId: 'b', credentialId: 'c' })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'store_unavailable' });
  expect(String((error as Error).message)).not.toContain('pa55word');
  await store.close();
});
