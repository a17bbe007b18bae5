import { createToolGateway, defineTool, isApprovalRequired, KsadkError } from '@ksadk/core';
import { checkApprovalStore } from '@ksadk/core/testing';
import { Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { testApprovalRecord } from '../../../test-support/approval-record.js';
import { createPostgresApprovalStore } from './postgres-approval-store.js';
import {
  closedPort,
  describeWithPostgres,
  postgresUrl,
  runFixture,
  uniqueSchema,
} from './test-support.js';

const record = testApprovalRecord;

describeWithPostgres('PostgreSQL approval store', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: postgresUrl, max: 20 });
  });
  afterAll(() => pool?.end());

  it('passes the approval store conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkApprovalStore((quotas) =>
      createPostgresApprovalStore({ pool, schema: uniqueSchema(), ...quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('1,000 concurrent consumes of one grant from 4 processes: exactly one succeeds', {
    timeout: 60_000,
  }, async () => {
    const schema = uniqueSchema();
    const store = createPostgresApprovalStore({ pool, schema });
    const grant = record();
    await store.create(grant);
    await store.transition(grant.id, 'pending', 'approved', { decidedAt: Date.now() });
    const startAt = String(Date.now() + 5_000);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runFixture('consume-grant.mjs', [postgresUrl, schema, grant.id, '250', startAt]),
      ),
    );
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    expect(runs.reduce((sum, run) => sum + Number(run.stdout.trim()), 0)).toBe(1);
    expect(await store.get(grant.id)).toMatchObject({ status: 'consumed', arguments: {} });
    const { rows } = await pool.query(
      `SELECT consumed_at IS NOT NULL AS consumed, arguments FROM "${schema}".ksadk_approvals`,
    );
    expect(rows).toEqual([{ consumed: true, arguments: '{}' }]);
  });

  it('hostile ids and values are data: SQL-looking, NUL, unicode, huge', async () => {
    const schema = uniqueSchema();
    const store = createPostgresApprovalStore({ pool, schema, perSession: { maxRecords: 1 } });
    const hostile = [
      "'; DROP TABLE ksadk_approvals; --",
      'a\u0000b',
      '\ud800 lone',
      '😀 日本',
      'x'.repeat(10_000),
    ];
    for (const value of hostile) {
      const made = record({
        id: value,
        accountId: value,
        sessionId: value,
        userId: value,
        bindingKey: value,
        arguments: { value, [value]: 1 },
        argumentsChars: value.length,
      });
      await store.create(made);
      await store.transition(made.id, 'pending', 'approved', { reason: value });
      expect(await store.get(made.id)).toEqual({ ...made, status: 'approved', reason: value });
      expect((await store.findOpen(value, Date.now()))?.id).toBe(value);
    }
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".ksadk_approvals`);
    expect(rows[0].n).toBe(hostile.length);
  });

  it('two gateways on one database share requests, and a grant is used once across them', async () => {
    const schema = uniqueSchema();
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
    const stores = [0, 1].map(() =>
      createPostgresApprovalStore({ connectionString: postgresUrl, schema }),
    );
    const secret = 'a shared approval secret for the test';
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

  it('a wrong password is reported without the password', { timeout: 20_000 }, async () => {
    // The test server trusts every local user: a missing database stands in for a refused login.
    const url = new URL(postgresUrl);
    url.password = 'sw0rdfish-secret';
    url.pathname = '/no_such_database';
    const store = createPostgresApprovalStore({ connectionString: url.href });
    const error = (await store.get('appr_x').catch((e: unknown) => e)) as KsadkError;
    expect(error.code).toBe('store_unavailable');
    expect(error.message).toContain('3D000');
    expect(error.message).not.toContain('sw0rdfish');
    await store.close();
  });

  it('refuses bad options', () => {
    expect(() => createPostgresApprovalStore({})).toThrow(/exactly one of `pool`/);
    for (const schema of ['Public', 'a-b', 'x"; DROP', '', '1abc', 'a'.repeat(64)])
      expect(() => createPostgresApprovalStore({ pool, schema }), schema).toThrow(/schema must be/);
    expect(() => createPostgresApprovalStore({ pool, perAcount: {} } as never)).toThrow(
      /did you mean "perAccount"/,
    );
  });
});

it('a PostgreSQL that is down fails fast with store_unavailable and no password in the message', {
  timeout: 20_000,
}, async () => {
  const port = await closedPort();
  const store = createPostgresApprovalStore({
    connectionString: `postgres://ksadk:hunter2-password@127.0.0.1:${port}/postgres`,
    timeoutMs: 4_000,
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
  expect(error.message).not.toContain('postgres://');
  const created = await store.create(record()).then(
    () => 'created',
    (e: KsadkError) => `${e.code} ${e.message}`,
  );
  expect(created).toMatch(/^store_unavailable /);
  expect(created).not.toContain('hunter2');
  await store.close();
});
