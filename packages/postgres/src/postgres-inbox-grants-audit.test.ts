import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testApprovalRecord as record } from '../../../test-support/approval-record.js';
import { APPROVAL_COLUMNS, approvalRowValues } from './approval-rows.js';
import { createPostgresApprovalStore } from './postgres-approval-store.js';
import { describeWithPostgres, postgresUrl, uniqueSchema } from './test-support.js';

const grant = (overrides: Record<string, unknown> = {}) => ({
  id: `sgr_${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
  effect: 'allow' as const,
  scope: 'session' as const,
  accountId: 'acme',
  userId: 'alice',
  sessionId: 's1',
  toolName: 'write_note',
  createdAt: Date.now(),
  expiresAt: Date.now() + 60_000,
  approvalId: 'appr_1',
  decidedBy: 'account:acme',
  ...overrides,
});

const auditEntry = (overrides: Record<string, unknown> = {}) => ({
  id: `aud_${Math.random().toString(16).slice(2)}`,
  at: Date.now(),
  event: 'requested' as const,
  accountId: 'acme',
  userId: 'alice',
  sessionId: 's1',
  toolName: 'write_note',
  argsDigest: 'digest',
  ...overrides,
});

/**
 * The median of 5 timed calls of `work`, in milliseconds, after two untimed ones; measured again
 * (at most 3 times) while over `bound`, so a moment of load on a shared machine does not fail it.
 */
/** Three times the bench's 20 ms target (see the listing test). */
const LOADED_BOUND_MS = 60;

async function medianMs(work: () => Promise<unknown>, bound: number): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < 3 && best >= bound; round += 1) {
    await work();
    await work();
    const times: number[] = [];
    for (let run = 0; run < 5; run += 1) {
      const started = performance.now();
      await work();
      times.push(performance.now() - started);
    }
    best = Math.min(best, times.sort((a, b) => a - b)[2]!);
  }
  return best;
}

describeWithPostgres('PostgreSQL approval store: inbox, standing grants, audit log', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: postgresUrl, max: 20 });
  });
  afterAll(() => pool?.end());

  // The 20 ms target is the bench's (`pnpm bench`, idle machine); here the machine runs the whole CI
  // at once, so the bound is three times that: wide enough for load, tight enough for a full scan.
  it('lists 100 pending requests out of 10,000 quickly (bench target: 20 ms)', {
    timeout: 60_000,
  }, async () => {
    const schema = uniqueSchema();
    const store = createPostgresApprovalStore({ pool, schema });
    await store.get('appr_x'); // migrates the schema
    const now = Date.now();
    // The pending ones are the oldest: every decided record is newer than all of them.
    const made = Array.from({ length: 10_000 }, (_, index) =>
      record({
        sessionId: `s${index % 50}`,
        bindingKey: `b${index}`,
        expiresAt: now + 3_600_000,
        ...(index < 100 ? {} : { status: 'approved', decidedAt: now }),
      }),
    );
    // Rows exactly as create writes them, a thousand per statement.
    for (let start = 0; start < made.length; start += 1_000) {
      const batch = made.slice(start, start + 1_000);
      const width = APPROVAL_COLUMNS.length;
      await pool.query(
        `INSERT INTO "${schema}".ksadk_approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES ${batch
          .map(
            (_, row) =>
              `(${APPROVAL_COLUMNS.map((_, column) => `$${row * width + column + 1}`).join(', ')})`,
          )
          .join(', ')}`,
        batch.flatMap(approvalRowValues),
      );
    }
    // A settled table, as it is between bursts (autovacuum would otherwise run during the timing).
    await pool.query(`VACUUM ANALYZE "${schema}".ksadk_approvals`);
    const list = (status: 'pending' | 'expired', at = now) =>
      store.listRequests({ accountId: 'acme', status, now: at, limit: 100 });
    const page = await list('pending');
    expect(page.items.map((item) => item.id)).toEqual(
      made
        .slice(0, 100)
        .map((item) => item.id)
        .reverse(),
    );
    const pending = await medianMs(() => list('pending'), LOADED_BOUND_MS);
    const expired = await medianMs(() => list('expired', now + 7_200_000), LOADED_BOUND_MS);
    const everyone = await medianMs(() => store.listRequests({ now, limit: 100 }), LOADED_BOUND_MS);
    console.log(
      `PostgreSQL: 100 pending of 10,000 listed in ${pending.toFixed(2)} ms, ` +
        `100 expired in ${expired.toFixed(2)} ms, the newest 100 of every account in ` +
        `${everyone.toFixed(2)} ms (medians of 5)`,
    );
    expect(pending).toBeLessThan(LOADED_BOUND_MS);
    expect(expired).toBeLessThan(LOADED_BOUND_MS);
    expect(everyone).toBeLessThan(LOADED_BOUND_MS);
    await store.close();
  });

  it('rows written before the filter columns are still listed and filtered', async () => {
    const schema = uniqueSchema();
    const store = createPostgresApprovalStore({ pool, schema });
    const old = record({ toolName: 'old_tool', userId: 'bob', sessionId: 's9' });
    const fresh = record();
    await store.create(old);
    await store.create(fresh);
    await pool.query(
      `UPDATE "${schema}".ksadk_approvals SET tool_key = NULL, user_key = NULL,
         session_id_key = NULL, decide_by = NULL WHERE id = $1`,
      [old.id],
    );
    const ids = (query: Record<string, string>) =>
      store
        .listRequests({ now: Date.now(), limit: 10, ...query })
        .then((page) => page.items.map((item) => item.id));
    expect(await ids({ accountId: 'acme' })).toEqual([fresh.id, old.id]);
    expect(await ids({ toolName: 'old_tool' })).toEqual([old.id]);
    expect(await ids({ userId: 'alice' })).toEqual([fresh.id]);
    expect(await ids({ sessionId: 's9' })).toEqual([old.id]);
    expect(await ids({ accountId: 'acme', status: 'pending' })).toEqual([fresh.id, old.id]);
    await store.close();
  });

  it('hostile values in grants, audit records and filters are data: NUL, lone surrogates, huge', async () => {
    const schema = uniqueSchema();
    const store = createPostgresApprovalStore({ pool, schema });
    for (const value of ['a\u0000b', '\ud800 lone', "'; DROP TABLE x; --", 'x'.repeat(10_000)]) {
      const made = grant({
        id: value,
        accountId: value,
        userId: value,
        sessionId: value,
        toolName: value,
        reason: value,
        match: { [value]: { equals: value } },
      });
      await store.saveStandingGrant(made);
      expect(await store.getStandingGrant(value)).toEqual(made);
      const found = await store.findStandingGrants({
        accountId: value,
        toolName: value,
        now: Date.now(),
      });
      expect(found).toEqual([made]);
      const listed = await store.listStandingGrants({
        accountId: value,
        userId: value,
        sessionId: value,
        toolName: value,
        now: Date.now(),
        limit: 5,
      });
      expect(listed.items).toEqual([made]);
      const entry = auditEntry({ accountId: value, reason: value, arguments: { [value]: value } });
      await store.appendAudit(entry);
      expect((await store.listAudit({ accountId: value, limit: 5 })).items).toEqual([entry]);
      const request = record({
        accountId: value,
        sessionId: value,
        toolName: value,
        userId: value,
      });
      await store.create(request);
      const page = await store.listRequests({
        accountId: value,
        sessionId: value,
        toolName: value,
        userId: value,
        now: Date.now(),
        limit: 5,
      });
      expect(page.items.map((item) => item.id)).toEqual([request.id]);
    }
    await store.close();
  });

  it('a quota lowered below what an account holds makes room from its inactive grants', async () => {
    const schema = uniqueSchema();
    const roomy = createPostgresApprovalStore({ pool, schema });
    const saved = Array.from({ length: 8 }, () => grant());
    for (const one of saved) await roomy.saveStandingGrant(one);
    for (const one of saved.slice(0, 6)) await roomy.revokeStandingGrant(one.id, Date.now());
    const tight = createPostgresApprovalStore({ pool, schema, standingGrants: { perAccount: 3 } });
    await tight.saveStandingGrant(grant());
    const held = await tight.listStandingGrants({
      accountId: 'acme',
      includeInactive: true,
      now: Date.now(),
      limit: 20,
    });
    expect(held.items).toHaveLength(3);
    expect(held.items.every((one) => one.revokedAt === undefined)).toBe(true);
    await expect(tight.saveStandingGrant(grant())).rejects.toMatchObject({
      code: 'approval_quota_exceeded',
    });
    await Promise.all([roomy.close(), tight.close()]);
  });

  it('the audit log trims per append and keeps its counts', async () => {
    const schema = uniqueSchema();
    const store = createPostgresApprovalStore({ pool, schema, audit: { perAccount: 5, total: 8 } });
    for (let index = 0; index < 3; index += 1)
      await store.appendAudit(auditEntry({ accountId: 'other' }));
    for (let index = 0; index < 40; index += 1) await store.appendAudit(auditEntry());
    const { rows } = await pool.query(
      `SELECT account_key = '' AS whole, records::int AS records,
         (SELECT count(*)::int FROM "${schema}".ksadk_approval_audit a
          WHERE c.account_key = '' OR a.account_key = c.account_key) AS actual
       FROM "${schema}".ksadk_approval_audit_counts c ORDER BY 1, 2`,
    );
    expect(rows).toEqual([
      { whole: false, records: 3, actual: 3 },
      { whole: false, records: 5, actual: 5 },
      { whole: true, records: 8, actual: 8 },
    ]);
    expect(await store.listAudit({ limit: 5, cursor: 'not-a-cursor' })).toEqual({ items: [] });
    await store.close();
  });
});
