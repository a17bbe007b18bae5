import { type ExecutionRecord, KsadkError } from '@ksadk/core';
import { checkExecutionStore } from '@ksadk/core/testing';
import { Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresExecutionStore } from './postgres-execution-store.js';
import { closedPort, describeWithPostgres, postgresUrl, uniqueSchema } from './test-support.js';

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

describeWithPostgres('PostgreSQL execution store', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: postgresUrl });
  });
  afterAll(() => pool?.end());

  it('passes the execution store conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkExecutionStore((quotas) =>
      createPostgresExecutionStore({ pool, schema: uniqueSchema(), quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('holds a column per field, one row per call, and keeps the total counter exact', async () => {
    const schema = uniqueSchema();
    const store = createPostgresExecutionStore({ pool, schema, quotas: { total: 3 } });
    const first = execution({ invocationId: 'inv_1', approvalId: 'appr_1' });
    await store.begin(first);
    await store.complete(first.id, { status: 'failed', endedAt: Date.now(), errorType: 'x' });
    const retry = execution({ callId: first.callId });
    expect(await store.begin(retry)).toEqual({
      created: true,
      record: { ...retry, attempt: 2 },
    });
    const { rows } = await pool.query(`SELECT * FROM "${schema}".ksadk_executions`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      execution_id: retry.id,
      call_id: first.callId,
      tool_name: 'write_note',
      account_id: 'acct-a',
      session_id: 's1',
      status: 'started',
      attempt: 2,
      invocation_id: null,
    });
    // The store-wide total: two more fit, then the store is full of running calls.
    await store.begin(execution({ accountId: 'acct-b' }));
    await store.begin(execution({ accountId: 'acct-c' }));
    await expect(store.begin(execution())).rejects.toMatchObject({
      code: 'execution_quota_exceeded',
    });
    const totals = await pool.query(`SELECT records FROM "${schema}".ksadk_execution_totals`);
    expect(Number(totals.rows[0].records)).toBe(3);
  });

  it('concurrent begins of one account stay within its quota', { timeout: 30_000 }, async () => {
    const store = createPostgresExecutionStore({
      pool,
      schema: uniqueSchema(),
      quotas: { perAccount: 5 },
    });
    await store.get('exec_warm_up'); // migrated before the race
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) => store.begin(execution({ sessionId: `s${index}` }))),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    for (const outcome of refused)
      expect(outcome.reason).toMatchObject({ code: 'execution_quota_exceeded' });
  });

  it('a 64 KiB call id is one call like any other', async () => {
    const store = createPostgresExecutionStore({ pool, schema: uniqueSchema() });
    const callId = 'x'.repeat(64 * 1024);
    const first = execution({ callId });
    expect((await store.begin(first)).created).toBe(true);
    expect(await store.begin(execution({ callId }))).toEqual({ created: false, existing: first });
    expect(await store.findCall({ ...first, now: Date.now() })).toEqual(first);
    expect((await store.begin(execution({ callId: `${callId}y` }))).created).toBe(true);
  });

  it("an account's counter outlives records another account's call swept; full, it is counted afresh", async () => {
    const schema = uniqueSchema();
    const store = createPostgresExecutionStore({ pool, schema, quotas: { perAccount: 2 } });
    await store.get('exec_warm_up'); // migrated before the clock starts
    const expiresAt = Date.now() + 300;
    for (let index = 0; index < 2; index += 1)
      await store.begin(execution({ sessionId: `s${index}`, expiresAt }));
    await new Promise((resolve) => setTimeout(resolve, expiresAt + 100 - Date.now()));
    // acct-b's call sweeps acct-a's expired rows; acct-a's counter still says 2.
    await store.begin(execution({ accountId: 'acct-b' }));
    const counts = `SELECT records FROM "${schema}".ksadk_execution_counts ORDER BY records`;
    expect((await pool.query(counts)).rows.map((row) => Number(row.records))).toEqual([1, 2]);
    expect((await store.begin(execution({ sessionId: 's3' }))).created).toBe(true);
    expect((await pool.query(counts)).rows.map((row) => Number(row.records))).toEqual([1, 1]);
  });

  it('a started record past its deadline (unknown) makes room; a running one does not', async () => {
    const store = createPostgresExecutionStore({
      pool,
      schema: uniqueSchema(),
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
    const store = createPostgresExecutionStore({
      pool,
      schema: uniqueSchema(),
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
    const store = createPostgresExecutionStore({
      pool,
      schema: uniqueSchema(),
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
    const schema = uniqueSchema();
    const store = createPostgresExecutionStore({
      pool,
      schema,
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
    // The store's count of inline result characters is what the rows hold.
    const { rows } = await pool.query(
      `SELECT result_chars, (SELECT sum(result_chars) FROM "${schema}".ksadk_executions) AS held
       FROM "${schema}".ksadk_execution_totals`,
    );
    const twoResults = 2 * JSON.stringify({ ok: true, text: 'r'.repeat(880) }).length;
    expect(Number(rows[0].result_chars)).toBe(twoResults);
    expect(Number(rows[0].held)).toBe(twoResults);
  });

  it('refuses bad options', () => {
    expect(() => createPostgresExecutionStore({ pool, schema: 'Bad-Name' })).toThrow(KsadkError);
    expect(() => createPostgresExecutionStore({ connectionString: '' })).toThrow(/exactly one/);
    expect(() => createPostgresExecutionStore({ pool, timeoutMs: 0 })).toThrow(/positive/);
    expect(() => createPostgresExecutionStore({ pool, quotas: { perSession: 0 } })).toThrow(
      KsadkError,
    );
    expect(() => createPostgresExecutionStore({ pool, unknown: true } as never)).toThrow(
      KsadkError,
    );
  });
});

it('a PostgreSQL that is down fails with store_unavailable, without the password', {
  timeout: 20_000,
}, async () => {
  const store = createPostgresExecutionStore({
    connectionString: `postgres://user:pa55word-secret@127.0.0.1:${await closedPort()}/db`,
    timeoutMs: 2_000,
  });
  const error = await Promise.resolve(store.begin(execution())).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'store_unavailable' });
  expect(String((error as Error).message)).not.toContain('pa55word');
  await store.close();
});
