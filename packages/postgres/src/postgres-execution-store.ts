import { type ExecutionStore, KsadkError } from '@ksadk/core';
import {
  checkOptions,
  type ExecutionQuotaOptions,
  executionQuotaExceeded,
  type OptionKeys,
  resolveExecutionQuotas,
} from '@ksadk/core/adapter';
import { idKeyOf, keyOf } from './approval-rows.js';
import {
  type ExecutionRow,
  executionKeys,
  executionOfRow,
  executionRowOf,
} from './execution-rows.js';
import { migrateOnce } from './migrations.js';
import { openPostgres, type PostgresConnectionOptions } from './postgres-connection.js';
import { postgresExecutionList } from './postgres-execution-list.js';
import { schemaOf } from './schema-name.js';
import { guarded } from './store-error.js';

/**
 * Options of {@link createPostgresExecutionStore}. Quotas are core's
 * ({@link ExecutionQuotaOptions}): records per session, per account and in total (every process
 * sharing the schema), and inline result characters per account.
 */
export interface PostgresExecutionStoreOptions
  extends PostgresConnectionOptions,
    ExecutionQuotaOptions {
  /** The schema of the tables (created and migrated on first use). @default 'public' */
  schema?: string;
  /** The clock (epoch ms) used for expiry decisions. @default Date.now */
  now?: () => number;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 10000 */
  timeoutMs?: number;
}

const OPTIONS = {
  pool: true,
  connectionString: true,
  schema: true,
  quotas: true,
  now: true,
  timeoutMs: true,
} as const satisfies OptionKeys<PostgresExecutionStoreOptions>;

/** An {@link ExecutionStore} shared by every process that uses the same database and schema. */
export interface PostgresExecutionStore extends ExecutionStore {
  readonly shared: true;
  /** Ends the pool the store opened from `connectionString`; a pool you passed stays open. */
  close(): Promise<void>;
}

/** What `ksadk_execution_begin` answers. */
type BeginOutcome =
  | { readonly outcome: 'created'; readonly attempt: number }
  | { readonly outcome: 'existing'; readonly row: ExecutionRow }
  | { readonly outcome: 'full' };

/**
 * An {@link ExecutionStore} on PostgreSQL, for several server instances: every process that uses
 * the same database and schema sees the same execution records, so a call id replayed on any
 * instance — or resumed by two at once — runs its tool once.
 *
 * - Table `ksadk_executions` (a column per field of the record; one row per call: a unique index
 *   on the hash of its account, session and call id), created on first use
 *   ({@link migratePostgres}).
 * - `begin` is one statement (one round trip): the function `ksadk_execution_begin`, which under
 *   an advisory lock per account creates the row unless the call has one (a failed run of the
 *   same tool and arguments is replaced by its retry), and keeps the quotas per session, per
 *   account and in total exactly as core's in-memory store does — expired rows first (up to
 *   1,000 per call, store-wide), then a full scope's oldest rows that are not running (ended, or
 *   started and past their deadline); a running record is never deleted, and a full store makes
 *   room from the calling account's own rows: no account's traffic deletes another account's live
 *   records. Each account's records and the store's total are counter rows
 *   (`ksadk_execution_counts`, `ksadk_execution_totals`), counted afresh when they say full.
 * - `complete` is one conditional `UPDATE … WHERE status = 'started'`: a compare-and-set. A result
 *   kept inline (`resultJson`) costs a second statement that keeps the account within
 *   `resultCharsPerAccount` (its oldest results are cleared, their rows stay), and a third when
 *   the store is past `resultCharsTotal` (anyone's oldest results).
 * - `list` is one indexed query per page, newest first; it never returns another account's rows.
 *
 * Driver failures and timeouts throw {@link KsadkError} `store_unavailable`, without the
 * connection string or password in the message.
 *
 * @example
 * ```ts
 * const store = createPostgresExecutionStore({ connectionString: process.env.DATABASE_URL });
 * const gateway = createToolGateway({ executions: { store } });
 * // … on shutdown:
 * await store.close();
 * ```
 */
export function createPostgresExecutionStore(
  options: PostgresExecutionStoreOptions,
): PostgresExecutionStore {
  const where = 'createPostgresExecutionStore()';
  checkOptions(options, OPTIONS, where);
  const quotas = resolveExecutionQuotas(options.quotas, where);
  const schema = schemaOf(options.schema, where);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(timeoutMs > 0))
    throw new KsadkError(
      'invalid_config',
      'createPostgresExecutionStore({ timeoutMs }) must be positive.',
    );
  const now = options.now ?? Date.now;
  const connection = openPostgres(options, where, timeoutMs);
  const { pool } = connection;
  const ready = migrateOnce(pool, schema.name);
  const table = `${schema.sql}.ksadk_executions`;

  const run = <T>(operation: string, work: () => Promise<T>): Promise<T> =>
    guarded(operation, timeoutMs, async () => {
      await ready();
      return work();
    });

  const totals = `${schema.sql}.ksadk_execution_totals`;

  /**
   * Clears the oldest inline results of an account (or of anyone, `null`) past `quota`
   * characters, and takes them off the store's count: the rows cleared and what they held.
   */
  const trimResults = async (
    accountKey: string | null,
    quota: number,
  ): Promise<{ ids: string[]; freed: number }> => {
    const { rows } = await pool.query<{ id: string; freed: string }>(
      `WITH ranked AS (
         SELECT id, result_chars, sum(result_chars) OVER (ORDER BY seq DESC) AS newer
         FROM ${table} WHERE ($1::text IS NULL OR account_key = $1) AND result_json IS NOT NULL),
       trimmed AS (
         UPDATE ${table} AS t SET result_json = NULL, result_chars = 0 FROM ranked
         WHERE t.id = ranked.id AND ranked.newer > $2 AND t.result_json IS NOT NULL
         RETURNING t.id, ranked.result_chars AS freed),
       counted AS (
         UPDATE ${totals} SET result_chars = result_chars - (SELECT sum(freed) FROM trimmed)
         WHERE id = 1 AND EXISTS (SELECT 1 FROM trimmed))
       SELECT id, freed FROM trimmed`,
      [accountKey, quota],
    );
    return {
      ids: rows.map((row) => row.id),
      freed: rows.reduce((sum, row) => sum + Number(row.freed), 0),
    };
  };

  return {
    shared: true,
    begin: (record) =>
      run('record a call', async () => {
        const { rows } = await pool.query<{ begun: BeginOutcome }>(
          `SELECT ${schema.sql}.ksadk_execution_begin($1::jsonb, $2, $3, $4, $5, $6) AS begun`,
          [
            JSON.stringify(executionRowOf(record)),
            Math.floor(now()),
            quotas.perSession,
            quotas.perAccount,
            quotas.total,
            Math.ceil(timeoutMs / 2),
          ],
        );
        const begun = rows[0]!.begun;
        if (begun.outcome === 'full') throw executionQuotaExceeded(record);
        if (begun.outcome === 'existing')
          return { created: false, existing: executionOfRow(begun.row) };
        if (record.argumentsJson !== undefined)
          await pool.query(`UPDATE ${table} SET arguments_json = $2 WHERE id = $1`, [
            idKeyOf(record.id),
            record.argumentsJson,
          ]);
        return { created: true, record: { ...record, attempt: begun.attempt } };
      }),
    complete: (id, end) =>
      run('end a call record', async () => {
        // A result longer than the account's whole quota is not kept inline.
        const kept =
          end.resultJson !== undefined && end.resultJson.length <= quotas.resultCharsPerAccount
            ? end.resultJson
            : undefined;
        const { rows } = await pool.query<ExecutionRow & { results_held: string | null }>(
          `WITH done AS (
             UPDATE ${table} SET status = $2, ended_at = $3, error_type = $4, result_handle = $5,
               result_json = $6, result_chars = $7
             WHERE id = $1 AND status = 'started' RETURNING *),
           held AS (
             UPDATE ${totals} SET result_chars = ${totals}.result_chars + done.result_chars
             FROM done WHERE ${totals}.id = 1 AND done.result_chars > 0
             RETURNING ${totals}.result_chars)
           SELECT done.*, (SELECT result_chars FROM held) AS results_held FROM done`,
          [
            idKeyOf(id),
            end.status,
            end.endedAt,
            end.errorType ?? null,
            end.resultHandle ?? null,
            kept ?? null,
            kept?.length ?? 0,
          ],
        );
        const row = rows[0];
        if (!row) return undefined;
        const ended = executionOfRow(row);
        if (kept === undefined) return ended;
        // Past a quota the oldest results go: the account's, then anyone's in the store.
        const ofAccount = await trimResults(keyOf(ended.accountId), quotas.resultCharsPerAccount);
        const trimmed = [...ofAccount.ids];
        if (Number(row.results_held) - ofAccount.freed > quotas.resultCharsTotal)
          trimmed.push(...(await trimResults(null, quotas.resultCharsTotal)).ids);
        if (!trimmed.includes(idKeyOf(id))) return ended;
        const { resultJson: _, ...withoutResult } = ended;
        return withoutResult;
      }),
    get: (id) =>
      run('read a call record', async () => {
        const { rows } = await pool.query<ExecutionRow>(`SELECT * FROM ${table} WHERE id = $1`, [
          idKeyOf(id),
        ]);
        return rows[0] && executionOfRow(rows[0]);
      }),
    findCall: (call) =>
      run('find a call record', async () => {
        const { rows } = await pool.query<ExecutionRow>(
          `SELECT * FROM ${table} WHERE call_key = $1 AND expires_at > $2::float8`,
          [executionKeys(call).call_key, call.now],
        );
        return rows[0] && executionOfRow(rows[0]);
      }),
    list: postgresExecutionList({ pool, schema, timeoutMs, now, ready }),
    close: () => connection.close(),
  };
}
