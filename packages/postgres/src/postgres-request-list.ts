import type { ApprovalRecord, ApprovalStore } from '@ksadk/core';
import { pageSize, requestMatches } from '@ksadk/core/adapter';
import { type ApprovalRow, keyOf, recordOfRow } from './approval-rows.js';
import { Conditions, type PostgresStoreContext, seqCursor } from './postgres-store-context.js';
import { guarded } from './store-error.js';

type RequestQuery = Parameters<ApprovalStore['listRequests']>[0];

/**
 * What the listed status means in SQL. `pending` and `expired` are written out with the literal
 * status, so the planner can use the pending-only indexes.
 */
const STATUS_SQL: Readonly<Record<string, string>> = {
  pending: `status = 'pending' AND coalesce(decide_by, expires_at) > $?::float8`,
  expired: `status = 'pending' AND coalesce(decide_by, expires_at) <= $?::float8`,
  approved: `status = 'approved'`,
  rejected: `status = 'rejected'`,
  consumed: `status = 'consumed'`,
};

/** The query's filters as SQL. Rows written before the filter columns (NULL there) stay candidates. */
function conditionsOf(query: RequestQuery): Conditions | undefined {
  const where = new Conditions();
  if (query.accountId !== undefined) {
    where.add('account_key = $?', keyOf(query.accountId));
    if (query.sessionId !== undefined)
      where.add('session_key = $?', keyOf(query.accountId, query.sessionId));
  } else if (query.sessionId !== undefined) {
    where.add('(session_id_key = $? OR session_id_key IS NULL)', keyOf(query.sessionId));
  }
  if (query.userId !== undefined)
    where.add(
      '(user_key = $? OR user_key = $? OR user_key IS NULL)',
      keyOf(query.userId),
      keyOf(''),
    );
  if (query.toolName !== undefined)
    where.add('(tool_key = $? OR tool_key IS NULL)', keyOf(query.toolName));
  if (query.status !== undefined) {
    const sql = Object.hasOwn(STATUS_SQL, query.status) ? STATUS_SQL[query.status] : undefined;
    if (sql === undefined) return undefined;
    where.add(sql, query.now);
  }
  return where;
}

/**
 * {@link ApprovalStore.listRequests} on PostgreSQL: one indexed query per page, newest first by
 * `seq` (insertion order), `limit + 1` rows to tell whether more follow.
 */
export function postgresRequestList(context: PostgresStoreContext): ApprovalStore['listRequests'] {
  const { pool, schema, timeoutMs, ready } = context;
  const table = `${schema.sql}.ksadk_approvals`;
  return (query) =>
    guarded('list approval requests', timeoutMs, async () => {
      const before = seqCursor(query.cursor);
      const where = conditionsOf(query);
      if (before === undefined || where === undefined) return { items: [] };
      if (before !== null) where.add('seq < $?', before);
      const limit = pageSize(query.limit);
      await ready();
      const { rows } = await pool.query<ApprovalRow>(
        `SELECT * FROM ${table} WHERE ${where} ORDER BY seq DESC LIMIT ${where.param(limit + 1)}`,
        where.params,
      );
      const items: ApprovalRecord[] = [];
      for (const row of rows.slice(0, limit)) {
        const record = recordOfRow(row);
        if (requestMatches(record, query)) items.push(record);
      }
      return rows.length > limit ? { items, nextCursor: String(rows[limit - 1]!.seq) } : { items };
    });
}
