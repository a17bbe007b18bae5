import type { ApprovalStore, StandingGrant } from '@ksadk/core';
import {
  approvalQuotaExceeded,
  isActiveGrant,
  pageSize,
  type StandingGrantQuota,
} from '@ksadk/core/adapter';
import type { PoolClient } from 'pg';
import { idKeyOf, keyOf } from './approval-rows.js';
import { type PostgresStoreContext, pageConditions } from './postgres-store-context.js';
import { isQuotaRefusal, onClient } from './postgres-transaction.js';
import { guarded } from './store-error.js';

/** The standing-grant methods of the PostgreSQL approval store. */
export type PostgresStandingGrants = Pick<
  ApprovalStore,
  | 'saveStandingGrant'
  | 'getStandingGrant'
  | 'findStandingGrants'
  | 'listStandingGrants'
  | 'revokeStandingGrant'
>;

/** A row of `ksadk_standing_grants`, as far as reading a grant needs. */
interface GrantRow {
  readonly seq: string;
  readonly grant_body: string;
  readonly revoked_at: number | null;
}

/** The part of a grant stored as JSON (`revokedAt` has a column of its own: revocation sets it). */
type GrantBody = Omit<StandingGrant, 'revokedAt'>;

const grantOf = (row: GrantRow): StandingGrant => ({
  ...(JSON.parse(row.grant_body) as GrantBody),
  ...(row.revoked_at !== null ? { revokedAt: Number(row.revoked_at) } : {}),
});

/** A time as the float8 columns hold it (JSON has no infinities, the columns do). */
const timeOf = (at: number): number | string =>
  Number.isFinite(at) ? at : at > 0 ? 'Infinity' : '-Infinity';

/**
 * Standing grants on PostgreSQL (`ksadk_standing_grants`). A save runs in one transaction under a
 * store-wide advisory lock, so the quotas hold across processes: past the account's quota that
 * account's inactive (expired or revoked) grants are deleted, oldest first; past the store's,
 * any account's; an active grant never. Revocation is one conditional `UPDATE`: a compare-and-set.
 */
export function postgresStandingGrants(
  context: PostgresStoreContext,
  quota: StandingGrantQuota,
): PostgresStandingGrants {
  const { pool, schema, timeoutMs, now, ready } = context;
  const table = `${schema.sql}.ksadk_standing_grants`;
  const lockSpace = `ksadk_standing_grants:${schema.name}`;

  /** Deletes up to `count` inactive grants (of one account, or of any), oldest first. */
  const dropInactive = async (
    client: PoolClient,
    accountKey: string | null,
    count: number,
    at: number,
  ): Promise<number> => {
    const deleted = await client.query(
      `DELETE FROM ${table} WHERE id IN (
         SELECT id FROM ${table}
         WHERE ($1::text IS NULL OR account_key = $1) AND (revoked_at IS NOT NULL OR expires_at <= $2)
         ORDER BY seq LIMIT $3)`,
      [accountKey, at, count],
    );
    return deleted.rowCount ?? 0;
  };

  /** How many grants a scope holds, counting at most `limit` + 100 (the rest is not read). */
  const countOf = async (client: PoolClient, accountKey: string | null, limit: number) => {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table}
         WHERE $1::text IS NULL OR account_key = $1 LIMIT $2) AS held`,
      [accountKey, limit + 100],
    );
    return rows[0]!.n;
  };

  /**
   * Makes room for one more grant in a scope; false when it is full of active grants. Counted
   * again after each drop: a scope over a quota that was lowered may need several rounds.
   */
  const makeRoom = async (
    client: PoolClient,
    accountKey: string | null,
    limit: number,
    at: number,
  ): Promise<boolean> => {
    for (let round = 0; round < 10; round += 1) {
      const held = await countOf(client, accountKey, limit);
      if (held + 1 <= limit) return true;
      if ((await dropInactive(client, accountKey, held + 1 - limit, at)) === 0) return false;
    }
    return false;
  };

  const save = async (grant: StandingGrant): Promise<void> => {
    await ready();
    const { revokedAt, ...body } = grant;
    const accountKey = keyOf(grant.accountId);
    return onClient(
      pool,
      async (client) => {
        // One round trip: the lock name is a validated schema name.
        await client.query(
          `BEGIN; SET LOCAL lock_timeout = '${Math.ceil(timeoutMs / 2)}ms';
           SELECT pg_advisory_xact_lock(hashtext('${lockSpace}'), 0)`,
        );
        await client.query(`DELETE FROM ${table} WHERE id = $1`, [idKeyOf(grant.id)]);
        const at = now();
        let refusedBy: 'account' | 'server' | undefined;
        if (!(await makeRoom(client, accountKey, quota.perAccount, at))) refusedBy = 'account';
        else if (!(await makeRoom(client, null, quota.total, at))) refusedBy = 'server';
        if (refusedBy) {
          await client.query('COMMIT'); // what was dropped stays dropped, as in the in-memory store
          throw approvalQuotaExceeded(refusedBy, 'standing grants');
        }
        await client.query(
          `INSERT INTO ${table} (id, account_key, tool_key, user_key, session_id_key, expires_at,
             revoked_at, grant_body)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            idKeyOf(grant.id),
            accountKey,
            keyOf(grant.toolName),
            keyOf(grant.userId),
            keyOf(grant.sessionId),
            timeOf(grant.expiresAt),
            revokedAt === undefined ? null : timeOf(revokedAt),
            JSON.stringify(body satisfies GrantBody),
          ],
        );
        await client.query('COMMIT');
      },
      isQuotaRefusal,
    );
  };

  return {
    saveStandingGrant: (grant) => guarded('save a standing grant', timeoutMs, () => save(grant)),
    getStandingGrant: (id) =>
      guarded('read a standing grant', timeoutMs, async () => {
        await ready();
        const { rows } = await pool.query<GrantRow>(`SELECT * FROM ${table} WHERE id = $1`, [
          idKeyOf(id),
        ]);
        return rows[0] && grantOf(rows[0]);
      }),
    findStandingGrants: ({ accountId, toolName, now: at }) =>
      guarded('find standing grants', timeoutMs, async () => {
        await ready();
        const { rows } = await pool.query<GrantRow>(
          `SELECT * FROM ${table} WHERE account_key = $1 AND tool_key = $2
             AND revoked_at IS NULL AND expires_at > $3 ORDER BY seq`,
          [keyOf(accountId), keyOf(toolName), at],
        );
        return rows
          .map(grantOf)
          .filter(
            (grant) =>
              grant.accountId === accountId &&
              grant.toolName === toolName &&
              isActiveGrant(grant, at),
          );
      }),
    listStandingGrants: (query) =>
      guarded('list standing grants', timeoutMs, async () => {
        const where = pageConditions(query.cursor, query.accountId);
        if (!where) return { items: [] };
        if (query.userId !== undefined) where.add('user_key = $?', keyOf(query.userId));
        if (query.sessionId !== undefined) where.add('session_id_key = $?', keyOf(query.sessionId));
        if (query.toolName !== undefined) where.add('tool_key = $?', keyOf(query.toolName));
        if (query.includeInactive !== true)
          where.add('revoked_at IS NULL AND expires_at > $?', query.now);
        const limit = pageSize(query.limit);
        await ready();
        const { rows } = await pool.query<GrantRow>(
          `SELECT * FROM ${table} WHERE ${where} ORDER BY seq DESC
           LIMIT ${where.param(limit + 1)}`,
          where.params,
        );
        const items = rows.slice(0, limit).map(grantOf);
        return rows.length > limit
          ? { items, nextCursor: String(rows[limit - 1]!.seq) }
          : { items };
      }),
    revokeStandingGrant: (id, revokedAt) =>
      guarded('revoke a standing grant', timeoutMs, async () => {
        await ready();
        const { rows } = await pool.query<GrantRow>(
          `UPDATE ${table} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *`,
          [idKeyOf(id), timeOf(revokedAt)],
        );
        return rows[0] && grantOf(rows[0]);
      }),
  };
}
