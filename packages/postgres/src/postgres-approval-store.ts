import { type ApprovalStore, KsadkError } from '@ksadk/core';
import {
  type ApprovalQuota,
  type ApprovalQuotaOptions,
  approvalQuotaExceeded,
  checkOptions,
  type OptionKeys,
  resolveApprovalQuotas,
} from '@ksadk/core/adapter';
import type { PoolClient, QueryResult } from 'pg';
import { type BucketUsage, planRoom } from './approval-room.js';
import {
  APPROVAL_COLUMNS,
  type ApprovalRow,
  approvalRowValues,
  idKeyOf,
  keyOf,
  recordOfRow,
} from './approval-rows.js';
import { migrateOnce } from './migrations.js';
import { postgresAuditLog } from './postgres-audit-log.js';
import { openPostgres, type PostgresConnectionOptions } from './postgres-connection.js';
import { postgresRequestList } from './postgres-request-list.js';
import { postgresStandingGrants } from './postgres-standing-grants.js';
import type { PostgresStoreContext } from './postgres-store-context.js';
import { isQuotaRefusal, onClient } from './postgres-transaction.js';
import { schemaOf } from './schema-name.js';
import { guarded } from './store-error.js';

/**
 * Options of {@link createPostgresApprovalStore}. Quotas are core's ({@link ApprovalQuotaOptions}):
 * requests per session, per account and in total, `standingGrants` (per account and in total)
 * and the audit log's retention (`audit`: age, per account, in total); each total counts every
 * process sharing the schema.
 */
export interface PostgresApprovalStoreOptions
  extends PostgresConnectionOptions,
    ApprovalQuotaOptions {
  /** The schema of the tables (created and migrated on first use). @default 'public' */
  schema?: string;
  /** The clock (epoch ms) used for expiry decisions. @default Date.now */
  now?: () => number;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 10000 */
  timeoutMs?: number;
}

/** An {@link ApprovalStore} shared by every process that uses the same database and schema. */
export interface PostgresApprovalStore extends ApprovalStore {
  readonly shared: true;
  /** Ends the pool the store opened from `connectionString`; a pool you passed stays open. */
  close(): Promise<void>;
}

const OPTIONS = {
  pool: true,
  connectionString: true,
  schema: true,
  perSession: true,
  perAccount: true,
  total: true,
  standingGrants: true,
  audit: true,
  now: true,
  timeoutMs: true,
} as const satisfies OptionKeys<PostgresApprovalStoreOptions>;

/**
 * An {@link ApprovalStore} on PostgreSQL, for several server instances: every process that uses
 * the same database and schema sees the same requests, and a grant is consumed once whichever
 * process presents it.
 *
 * - `transition` is one conditional `UPDATE … WHERE id = $1 AND status = $from`: a compare-and-set,
 *   so of any number of concurrent consumes of one grant exactly one succeeds. A consumed record
 *   stays as a tombstone without its arguments (`consumed_at` set) until it expires.
 * - `create` runs in one transaction under a per-account advisory lock (quotas per session and
 *   per account, dropping exactly as core's in-memory store does: expired records, then the oldest
 *   tombstones, then the oldest undecided requests; approved grants and other accounts never),
 *   then under a store-wide advisory lock for the total quota, so concurrent creates never
 *   overshoot it.
 * - Expired records are deleted on every create (up to 1,000 at a time, skipping rows another
 *   transaction holds). The tables are created on first use ({@link migratePostgres}).
 * - The inbox listing is one indexed query per page (pending and expired requests have partial
 *   indexes). Standing grants are saved under a store-wide advisory lock (their quotas drop
 *   expired and revoked grants first, active ones never) and revoked with one conditional
 *   `UPDATE`. The audit log trims by age and count in the transaction of each append.
 *
 * Driver failures and timeouts throw {@link KsadkError} `store_unavailable`, without the
 * connection string or password in the message.
 *
 * @example
 * ```ts
 * const approvalStore = createPostgresApprovalStore({ connectionString: process.env.DATABASE_URL, schema: 'agents' });
 * const gateway = createToolGateway({ approvalStore, approvalSecret: process.env.KSADK_APPROVAL_SECRET });
 * // … on shutdown:
 * await approvalStore.close();
 * ```
 */
export function createPostgresApprovalStore(
  options: PostgresApprovalStoreOptions,
): PostgresApprovalStore {
  checkOptions(options, OPTIONS, 'createPostgresApprovalStore()');
  const { perSession, perAccount, total, standingGrants, audit } = resolveApprovalQuotas(
    options,
    'createPostgresApprovalStore',
  );
  const schema = schemaOf(options.schema, 'createPostgresApprovalStore()');
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(timeoutMs > 0))
    throw new KsadkError(
      'invalid_config',
      'createPostgresApprovalStore({ timeoutMs }) must be positive.',
    );
  const now = options.now ?? Date.now;
  const connection = openPostgres(options, 'createPostgresApprovalStore()', timeoutMs);
  const { pool } = connection;
  const ready = migrateOnce(pool, schema.name);
  const table = `${schema.sql}.ksadk_approvals`;
  const lockSpace = `ksadk_approvals:${schema.name}`;
  const context: PostgresStoreContext = { pool, schema, timeoutMs, now, ready };
  const statusParam = `$${APPROVAL_COLUMNS.indexOf('status') + 1}`;

  const totals = `${schema.sql}.ksadk_approval_totals`;

  /**
   * Deletes the rows `selection` picks (a `SELECT id … FOR UPDATE SKIP LOCKED`: rows another
   * transaction holds are left alone, so a create never waits for a transition) and takes them
   * off the store's totals in the same statement. Resolves with the number deleted.
   */
  const deleteRows = async (
    client: PoolClient,
    selection: string,
    params: unknown[],
  ): Promise<number> => {
    const { rows } = await client.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM ${table} WHERE id IN (${selection}) RETURNING arguments_chars),
       counted AS (
         UPDATE ${totals} SET records = records - (SELECT count(*) FROM gone),
           chars = chars - (SELECT coalesce(sum(arguments_chars), 0) FROM gone)
         WHERE id = 1 AND EXISTS (SELECT 1 FROM gone))
       SELECT count(*)::int AS n FROM gone`,
      params,
    );
    return rows[0]!.n;
  };

  /** Deletes expired records store-wide, at most `limit`; true when more may be left. */
  const sweepExpired = async (client: PoolClient, at: number, limit: number): Promise<boolean> =>
    (await deleteRows(
      client,
      `SELECT id FROM ${table} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [at, limit],
    )) === limit;

  /** What one bucket holds. */
  const usageOf = async (
    client: PoolClient,
    column: 'session_key' | 'account_key',
    key: string,
  ): Promise<BucketUsage> => {
    const { rows } = await client.query<{ records: string; chars: string }>(
      `SELECT count(*) AS records, coalesce(sum(arguments_chars), 0) AS chars
       FROM ${table} WHERE ${column} = $1`,
      [key],
    );
    return { records: Number(rows[0]!.records), chars: Number(rows[0]!.chars) };
  };

  /** Makes room in one bucket (`column` = its key); false when the record cannot fit. */
  const makeRoom = async (
    client: PoolClient,
    column: 'session_key' | 'account_key',
    key: string,
    quota: ApprovalQuota,
    incoming: number,
    at: number,
    known: BucketUsage,
  ): Promise<boolean> => {
    for (let attempt = 0; ; attempt += 1) {
      const used = attempt === 0 ? known : await usageOf(client, column, key);
      const enough = planRoom(used, [], quota, incoming);
      if (enough.fits || used.records === 0) return enough.fits;
      // The droppable records in the order they go: expired, tombstones, undecided; oldest first.
      const { rows } = await client.query<{ id: string; arguments_chars: string }>(
        `SELECT id, arguments_chars FROM ${table}
         WHERE ${column} = $1 AND (expires_at <= $2 OR status <> 'approved')
         ORDER BY (expires_at <= $2) DESC, (status = 'consumed') DESC, seq
         LIMIT $3`,
        [key, at, Math.max(1, used.records + 1 - quota.maxRecords) + 100],
      );
      const plan = planRoom(
        used,
        rows.map((row) => ({ id: row.id, chars: Number(row.arguments_chars) })),
        quota,
        incoming,
      );
      if (plan.drop.length === 0 || attempt === 3) return false;
      // Re-checked per row: a grant approved since the read is not dropped.
      const deleted = await deleteRows(
        client,
        `SELECT id FROM ${table} WHERE id = ANY($1::text[])
           AND (expires_at <= $2 OR status <> 'approved') FOR UPDATE SKIP LOCKED`,
        [plan.drop, at],
      );
      if (plan.fits && deleted === plan.drop.length) return true;
    }
  };

  /** Takes a place in the store's totals; false when the store is full. */
  const takeTotal = async (client: PoolClient, chars: number): Promise<boolean> => {
    const taken = await client.query(
      `UPDATE ${totals} SET records = records + 1, chars = chars + $1
       WHERE id = 1 AND records + 1 <= $2 AND chars + $1 <= $3`,
      [chars, total.maxRecords, total.maxChars],
    );
    return taken.rowCount === 1;
  };

  const create: ApprovalStore['create'] = async (record) => {
    await ready();
    const chars = Math.max(0, Math.floor(record.argumentsChars));
    const accountKey = keyOf(record.accountId);
    const sessionKey = keyOf(record.accountId, record.sessionId);
    const id = idKeyOf(record.id);
    return onClient(
      pool,
      async (client) => {
        // One round trip: the lock names are a validated schema name and a hex hash.
        await client.query(
          `BEGIN; SET LOCAL lock_timeout = '${Math.ceil(timeoutMs / 2)}ms';
           SELECT pg_advisory_xact_lock(hashtext('${lockSpace}'), hashtext('${accountKey}'))`,
        );
        const at = now();
        // Expired records go first, from every bucket: they are dead whatever their status.
        const backlog = await sweepExpired(client, at, 1000);
        // Both buckets in one read: the session's records are some of the account's.
        const { rows: usage } = await client.query<Record<string, string>>(
          `SELECT count(*) FILTER (WHERE session_key = $2) AS session_records,
             coalesce(sum(arguments_chars) FILTER (WHERE session_key = $2), 0) AS session_chars,
             count(*) AS account_records, coalesce(sum(arguments_chars), 0) AS account_chars
           FROM ${table} WHERE account_key = $1`,
          [accountKey, sessionKey],
        );
        const row = usage[0]!;
        const inSession = {
          records: Number(row['session_records']),
          chars: Number(row['session_chars']),
        };
        const inAccount = {
          records: Number(row['account_records']),
          chars: Number(row['account_chars']),
        };
        let refusedBy: 'session' | 'account' | 'server' | undefined;
        if (!(await makeRoom(client, 'session_key', sessionKey, perSession, chars, at, inSession)))
          refusedBy = 'session';
        else if (
          !(await makeRoom(
            client,
            'account_key',
            accountKey,
            perAccount,
            chars,
            at,
            // Drops in the session changed the account: read it again then.
            planRoom(inSession, [], perSession, chars).fits
              ? inAccount
              : await usageOf(client, 'account_key', accountKey),
          ))
        )
          refusedBy = 'account';
        else if (!(await takeTotal(client, chars))) {
          // Full: sweep what expired, count afresh (a hand-edited table drifts), try once more.
          if (backlog) await sweepExpired(client, at, 50_000);
          await client.query(
            `UPDATE ${totals} SET records = (SELECT count(*) FROM ${table}),
               chars = (SELECT coalesce(sum(arguments_chars), 0) FROM ${table}) WHERE id = 1`,
          );
          if (!(await takeTotal(client, chars))) refusedBy = 'server';
        }
        if (refusedBy) {
          await client.query('COMMIT'); // what was dropped stays dropped, as in the in-memory store
          throw approvalQuotaExceeded(refusedBy);
        }
        const insert = (): Promise<QueryResult> =>
          client.query(
            `INSERT INTO ${table} (${APPROVAL_COLUMNS.join(', ')}, consumed_at)
             VALUES (${APPROVAL_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')},
               CASE WHEN ${statusParam} = 'consumed' THEN now() END)
             ON CONFLICT (id) DO NOTHING`,
            approvalRowValues(record),
          );
        if ((await insert()).rowCount === 0) {
          // A record with this id already exists: it is replaced, as in the in-memory store.
          await deleteRows(client, `SELECT id FROM ${table} WHERE id = $1 FOR UPDATE SKIP LOCKED`, [
            id,
          ]);
          if ((await insert()).rowCount === 0) throw new Error('a record with this id is in use');
        }
        await client.query('COMMIT');
      },
      isQuotaRefusal,
    );
  };

  return {
    shared: true,
    create: (record) => guarded('save an approval request', timeoutMs, () => create(record)),
    get: (id) =>
      guarded('read an approval request', timeoutMs, async () => {
        await ready();
        const { rows } = await pool.query<ApprovalRow>(`SELECT * FROM ${table} WHERE id = $1`, [
          idKeyOf(id),
        ]);
        return rows[0] && recordOfRow(rows[0]);
      }),
    findOpen: (bindingKey, at) =>
      guarded('find an open approval request', timeoutMs, async () => {
        await ready();
        const { rows } = await pool.query<ApprovalRow>(
          `SELECT * FROM ${table} WHERE binding_key = $1 ORDER BY seq DESC LIMIT 1`,
          [keyOf(bindingKey)],
        );
        const row = rows[0];
        return row && Number(row.expires_at) > at ? recordOfRow(row) : undefined;
      }),
    transition: (id, from, to, patch = {}) =>
      guarded('update an approval request', timeoutMs, async () => {
        await ready();
        const params = [
          idKeyOf(id),
          from,
          to,
          patch.decidedAt ?? null,
          patch.reason !== undefined,
          patch.reason === undefined ? null : JSON.stringify(patch.reason),
          patch.decidedBy !== undefined,
          patch.decidedBy === undefined ? null : JSON.stringify(patch.decidedBy),
          patch.edited === undefined ? null : JSON.stringify(patch.edited),
        ];
        const decision = `decided_at = coalesce($4::bigint, a.decided_at),
          reason = CASE WHEN $5::boolean THEN $6::text ELSE a.reason END,
          decided_by = CASE WHEN $7::boolean THEN $8::text ELSE a.decided_by END`;
        if (to !== 'consumed') {
          const { rows } = await pool.query<ApprovalRow>(
            `UPDATE ${table} AS a SET status = $3, ${decision}, edited = coalesce($9::text, a.edited)
             WHERE a.id = $1 AND a.status = $2 RETURNING a.*`,
            params,
          );
          return rows[0] && recordOfRow(rows[0]);
        }
        // The tombstone keeps no arguments, edited ones neither (their characters leave the
        // totals in the same statement); the caller gets the record as it was, consumed.
        const { rows } = await pool.query<
          ApprovalRow & { old_arguments: string; old_chars: string; old_edited: string | null }
        >(
          `WITH done AS (
             UPDATE ${table} AS a
             SET status = $3, consumed_at = now(), arguments = '{}', arguments_chars = 0,
               edited = NULL, ${decision}
             FROM (SELECT id, arguments, arguments_chars, edited FROM ${table}
                   WHERE id = $1 FOR UPDATE) AS old
             WHERE a.id = old.id AND a.status = $2
             RETURNING a.*, old.arguments AS old_arguments, old.arguments_chars AS old_chars,
               coalesce($9::text, old.edited) AS old_edited),
           freed AS (
             UPDATE ${totals} SET chars = ${totals}.chars - done.old_chars
             FROM done WHERE ${totals}.id = 1 AND done.old_chars > 0)
           SELECT * FROM done`,
          params,
        );
        const row = rows[0];
        return (
          row &&
          recordOfRow(row, {
            json: row.old_arguments,
            chars: row.old_chars,
            edited: row.old_edited,
          })
        );
      }),
    listRequests: postgresRequestList(context),
    ...postgresStandingGrants(context, standingGrants),
    ...postgresAuditLog(context, audit),
    close: () => connection.close(),
  };
}
