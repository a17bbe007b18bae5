import type { ApprovalAuditEntry, ApprovalStore } from '@ksadk/core';
import { type AuditRetention, pageSize } from '@ksadk/core/adapter';
import type { PoolClient, QueryResult } from 'pg';
import { keyOf } from './approval-rows.js';
import { type PostgresStoreContext, pageConditions } from './postgres-store-context.js';
import { onClient } from './postgres-transaction.js';
import { guarded } from './store-error.js';

/** The audit-log methods of the PostgreSQL approval store. */
export type PostgresAuditLog = Pick<ApprovalStore, 'appendAudit' | 'listAudit'>;

/** At most this many records are dropped per retention rule per append. */
const TRIM_BATCH = 100;

/**
 * The audit log on PostgreSQL (`ksadk_approval_audit`, newest first by `seq`), with a count per
 * account and one of the whole log (`ksadk_approval_audit_counts`, account `''`), so an append
 * knows what to trim without counting rows. An append is one transaction: it takes the log's
 * count row first (appends queue there, so no two trims cross), adds the record, then drops the
 * account's oldest records past its count, records older than the retention among the log's
 * oldest, and the log's oldest past the total — at most {@link TRIM_BATCH} per rule.
 */
export function postgresAuditLog(
  context: PostgresStoreContext,
  retention: AuditRetention,
): PostgresAuditLog {
  const { pool, schema, timeoutMs, now, ready } = context;
  const table = `${schema.sql}.ksadk_approval_audit`;
  const counts = `${schema.sql}.ksadk_approval_audit_counts`;

  /** Deletes the records `selection` picks (a `SELECT seq …`) and takes them off the counts. */
  const drop = async (client: PoolClient, selection: string, params: unknown[]) => {
    const { rows } = await client.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${table} WHERE seq IN (${selection}) RETURNING account_key),
         per AS (SELECT account_key, count(*) AS n FROM gone GROUP BY account_key),
         accounts AS (UPDATE ${counts} AS c SET records = c.records - per.n
           FROM per WHERE c.account_key = per.account_key),
         whole AS (UPDATE ${counts} SET records = records - (SELECT count(*) FROM gone)
           WHERE account_key = '' AND EXISTS (SELECT 1 FROM gone))
       SELECT count(*)::int AS n FROM gone`,
      params,
    );
    return rows[0]!.n;
  };

  const append = async (entry: ApprovalAuditEntry): Promise<void> => {
    await ready();
    const accountKey = keyOf(entry.accountId);
    return onClient(pool, async (client) => {
      // One round trip; the log's count row is taken first by every append (a fixed lock order).
      const opened = (await client.query(
        `BEGIN; SET LOCAL lock_timeout = '${Math.ceil(timeoutMs / 2)}ms';
           INSERT INTO ${counts} VALUES ('', 1)
           ON CONFLICT (account_key) DO UPDATE SET records = ${counts}.records + 1
           RETURNING records`,
      )) as unknown as QueryResult<{ records: string }>[];
      let total = Number(opened.at(-1)!.rows[0]!.records);
      const added = await client.query<{ records: string }>(
        `WITH added AS (INSERT INTO ${table} (account_key, at, entry) VALUES ($1, $2, $3))
           INSERT INTO ${counts} VALUES ($1, 1)
           ON CONFLICT (account_key) DO UPDATE SET records = ${counts}.records + 1
           RETURNING records`,
        [accountKey, entry.at, JSON.stringify(entry)],
      );
      const mine = Number(added.rows[0]!.records);
      if (mine > retention.perAccount)
        total -= await drop(
          client,
          `SELECT seq FROM ${table} WHERE account_key = $1 ORDER BY seq LIMIT $2`,
          [accountKey, Math.min(TRIM_BATCH, mine - retention.perAccount)],
        );
      total -= await drop(
        client,
        `SELECT seq FROM (SELECT seq, at FROM ${table} ORDER BY seq LIMIT ${TRIM_BATCH}) AS oldest
           WHERE at < $1`,
        [now() - retention.retentionMs],
      );
      if (total > retention.total)
        await drop(client, `SELECT seq FROM ${table} ORDER BY seq LIMIT $1`, [
          Math.min(TRIM_BATCH, total - retention.total),
        ]);
      await client.query('COMMIT');
    });
  };

  return {
    appendAudit: (entry) => guarded('append an audit record', timeoutMs, () => append(entry)),
    listAudit: (query) =>
      guarded('list audit records', timeoutMs, async () => {
        const where = pageConditions(query.cursor, query.accountId);
        if (!where) return { items: [] };
        if (query.since !== undefined) where.add('at >= $?::float8', query.since);
        const limit = pageSize(query.limit);
        await ready();
        const { rows } = await pool.query<{ seq: string; entry: string }>(
          `SELECT seq, entry FROM ${table} WHERE ${where} ORDER BY seq DESC
           LIMIT ${where.param(limit + 1)}`,
          where.params,
        );
        const items = rows
          .slice(0, limit)
          .map((row) => JSON.parse(row.entry) as ApprovalAuditEntry);
        return rows.length > limit
          ? { items, nextCursor: String(rows[limit - 1]!.seq) }
          : { items };
      }),
  };
}
