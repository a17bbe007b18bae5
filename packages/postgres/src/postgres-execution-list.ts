import type { ExecutionQuery, ExecutionRecord, ExecutionStore } from '@ksadk/core';
import { executionMatches, executionPageSize } from '@ksadk/core/adapter';
import { keyOf } from './approval-rows.js';
import { type ExecutionRow, executionOfRow } from './execution-rows.js';
import {
  type Conditions,
  type PostgresStoreContext,
  pageConditions,
} from './postgres-store-context.js';
import { guarded } from './store-error.js';

/** What a listed outcome means in SQL (`$?` is the listing's clock). */
const OUTCOME_SQL: Readonly<Record<string, string>> = {
  running: `status = 'started' AND deadline_at > $?::float8`,
  unknown: `(status = 'unknown' OR (status = 'started' AND deadline_at <= $?::float8))`,
  succeeded: `status = 'succeeded'`,
  failed: `status = 'failed'`,
};

/** The query's filters as SQL; `undefined` for a cursor or outcome this store never gives. */
function conditionsOf(query: ExecutionQuery): Conditions | undefined {
  const where = pageConditions(query.cursor, query.accountId);
  if (!where) return undefined;
  where.add('expires_at > $?::float8', query.now);
  if (query.sessionId !== undefined) {
    if (query.accountId !== undefined)
      where.add('session_key = $?', keyOf(query.accountId, query.sessionId));
    else where.add('session_id = $?', query.sessionId);
  }
  if (query.userId !== undefined) where.add(`(user_id = '' OR user_id = $?)`, query.userId);
  if (query.toolName !== undefined) where.add('tool_name = $?', query.toolName);
  if (query.since !== undefined) where.add('started_at >= $?::float8', query.since);
  if (query.outcome !== undefined) {
    const sql = Object.hasOwn(OUTCOME_SQL, query.outcome) ? OUTCOME_SQL[query.outcome] : undefined;
    if (sql === undefined) return undefined;
    where.add(sql, query.now);
  }
  return where;
}

/**
 * {@link ExecutionStore.list} on PostgreSQL: one indexed query per page (the session's or the
 * account's rows, or every row), newest first by `seq` (insertion order), `limit + 1` rows to
 * tell whether more follow.
 */
export function postgresExecutionList(context: PostgresStoreContext): ExecutionStore['list'] {
  const { pool, schema, timeoutMs, ready } = context;
  const table = `${schema.sql}.ksadk_executions`;
  return (query) =>
    guarded('list call records', timeoutMs, async () => {
      const where = conditionsOf(query);
      if (!where) return { items: [] };
      const limit = executionPageSize(query.limit);
      await ready();
      const { rows } = await pool.query<ExecutionRow>(
        `SELECT * FROM ${table} WHERE ${where} ORDER BY seq DESC LIMIT ${where.param(limit + 1)}`,
        where.params,
      );
      const items: ExecutionRecord[] = [];
      for (const row of rows.slice(0, limit)) {
        const record = executionOfRow(row);
        if (executionMatches(record, query)) items.push(record);
      }
      return rows.length > limit ? { items, nextCursor: String(rows[limit - 1]!.seq) } : { items };
    });
}
