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
import { type ApprovalRow, idKeyOf, keyOf, type RecordBody, recordOfRow } from './approval-rows.js';
import { migrateOnce } from './migrations.js';
import { openPostgres, type PostgresConnectionOptions } from './postgres-connection.js';
import { schemaOf } from './schema-name.js';
import { guarded } from './store-error.js';

/**
 * Options of {@link createPostgresApprovalStore}. Quotas are core's ({@link ApprovalQuotaOptions});
 * `total` counts every process sharing the schema.
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
  const { perSession, perAccount, total } = resolveApprovalQuotas(
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
    const { status, decidedAt, reason, arguments: args, argumentsChars, ...body } = record;
    const chars = Math.max(0, Math.floor(argumentsChars));
    const accountKey = keyOf(record.accountId);
    const sessionKey = keyOf(record.accountId, record.sessionId);
    const id = idKeyOf(record.id);
    const client = await pool.connect();
    let failed = false;
    try {
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
          `INSERT INTO ${table} (id, binding_key, account_key, session_key, status, arguments_chars,
           created_at, expires_at, decided_at, reason, consumed_at, body, arguments)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $5 = 'consumed' THEN now() END, $11, $12)
         ON CONFLICT (id) DO NOTHING`,
          [
            id,
            keyOf(record.bindingKey),
            accountKey,
            sessionKey,
            status,
            chars,
            record.createdAt,
            record.expiresAt,
            decidedAt ?? null,
            reason === undefined ? null : JSON.stringify(reason),
            JSON.stringify(body satisfies RecordBody),
            JSON.stringify(args),
          ],
        );
      if ((await insert()).rowCount === 0) {
        // A record with this id already exists: it is replaced, as in the in-memory store.
        await deleteRows(client, `SELECT id FROM ${table} WHERE id = $1 FOR UPDATE SKIP LOCKED`, [
          id,
        ]);
        if ((await insert()).rowCount === 0) throw new Error('a record with this id is in use');
      }
      await client.query('COMMIT');
    } catch (error) {
      if (!(KsadkError.isInstance(error) && error.code === 'approval_quota_exceeded')) {
        failed = true;
        await client.query('ROLLBACK').catch(() => undefined);
      }
      throw error;
    } finally {
      client.release(failed);
    }
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
        ];
        const decision = `decided_at = coalesce($4::bigint, a.decided_at),
          reason = CASE WHEN $5::boolean THEN $6::text ELSE a.reason END`;
        if (to !== 'consumed') {
          const { rows } = await pool.query<ApprovalRow>(
            `UPDATE ${table} AS a SET status = $3, ${decision}
             WHERE a.id = $1 AND a.status = $2 RETURNING a.*`,
            params,
          );
          return rows[0] && recordOfRow(rows[0]);
        }
        // The tombstone keeps no arguments (their characters leave the totals in the same
        // statement); the caller gets the record as it was, consumed.
        const { rows } = await pool.query<
          ApprovalRow & { old_arguments: string; old_chars: string }
        >(
          `WITH done AS (
             UPDATE ${table} AS a
             SET status = $3, consumed_at = now(), arguments = '{}', arguments_chars = 0, ${decision}
             FROM (SELECT id, arguments, arguments_chars FROM ${table} WHERE id = $1 FOR UPDATE) AS old
             WHERE a.id = old.id AND a.status = $2
             RETURNING a.*, old.arguments AS old_arguments, old.arguments_chars AS old_chars),
           freed AS (
             UPDATE ${totals} SET chars = ${totals}.chars - done.old_chars
             FROM done WHERE ${totals}.id = 1 AND done.old_chars > 0)
           SELECT * FROM done`,
          params,
        );
        const row = rows[0];
        return row && recordOfRow(row, { json: row.old_arguments, chars: row.old_chars });
      }),
    close: () => connection.close(),
  };
}
