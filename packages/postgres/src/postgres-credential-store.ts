import {
  type CredentialKey,
  type CredentialQuotas,
  type CredentialRequestRecord,
  type CredentialStore,
  KsadkError,
  type StoredCredential,
} from '@ksadk/core';
import {
  checkOptions,
  credentialQuotaExceeded,
  type OptionKeys,
  resolveCredentialQuotas,
} from '@ksadk/core/adapter';
import type { PoolClient } from 'pg';
import { idKeyOf, keyOf } from './approval-rows.js';
import { migrateOnce } from './migrations.js';
import { openPostgres, type PostgresConnectionOptions } from './postgres-connection.js';
import { onClient } from './postgres-transaction.js';
import { schemaOf } from './schema-name.js';
import { guarded } from './store-error.js';

/** Options of {@link createPostgresCredentialStore}. */
export interface PostgresCredentialStoreOptions extends PostgresConnectionOptions {
  /** The schema of the tables (created and migrated on first use). @default 'public' */
  schema?: string;
  /** Credentials and open requests per account. @default { credentials: 200, requests: 100 } */
  quotas?: Partial<CredentialQuotas>;
  /** The clock (epoch ms) used for expiry decisions. @default Date.now */
  now?: () => number;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 10000 */
  timeoutMs?: number;
}

/** A {@link CredentialStore} shared by every process that uses the same database and schema. */
export interface PostgresCredentialStore extends CredentialStore {
  readonly shared: true;
  /** Ends the pool the store opened from `connectionString`; a pool you passed stays open. */
  close(): Promise<void>;
}

const OPTIONS = {
  pool: true,
  connectionString: true,
  schema: true,
  quotas: true,
  now: true,
  timeoutMs: true,
} as const satisfies OptionKeys<PostgresCredentialStoreOptions>;

interface CredentialRow {
  readonly body: string;
  readonly sealed_key_id: string;
  readonly sealed_data: string;
}

const credentialOfRow = (row: CredentialRow): StoredCredential => ({
  ...(JSON.parse(row.body) as Omit<StoredCredential, 'sealed'>),
  sealed: { keyId: row.sealed_key_id, data: row.sealed_data },
});

const requestOfRow = (row: { body: string; status: string }): CredentialRequestRecord => ({
  ...(JSON.parse(row.body) as Omit<CredentialRequestRecord, 'status'>),
  status: row.status === 'used' ? 'used' : 'pending',
});

const isCredentialQuotaError = (error: unknown): boolean =>
  KsadkError.isInstance(error) && error.code === 'credential_quota_exceeded';

const credentialKeyOf = (key: CredentialKey): string =>
  keyOf(key.accountId, key.userId, key.credentialId);

/**
 * A {@link CredentialStore} on PostgreSQL, for several server instances: every process that uses
 * the same database and schema sees the same credentials, and a sign-in request is used once
 * whichever process receives the answer.
 *
 * - Tables `ksadk_credentials` and `ksadk_credential_requests`, created on first use
 *   ({@link migratePostgres}); ids reach them only as SHA-256 keys (request ids as given when
 *   plain). Sealed secrets are stored as given, in their own columns: unreadable without the
 *   host's credential key.
 * - `putCredential` and `createRequest` check the per-account quota in one transaction under an
 *   advisory lock per account, so concurrent writers never overshoot it; a full account's used
 *   and expired requests are deleted first (never another account's).
 * - `useRequest` is one conditional `UPDATE … WHERE status = 'pending' AND expires_at > now`: a
 *   compare-and-set, so of any number of concurrent uses exactly one wins.
 *
 * Driver failures and timeouts throw {@link KsadkError} `store_unavailable`, without the
 * connection string or password in the message.
 *
 * @example
 * ```ts
 * const store = createPostgresCredentialStore({ connectionString: process.env.DATABASE_URL });
 * const gateway = createToolGateway({ credentials: { key: process.env.KSADK_CREDENTIAL_KEY, store } });
 * ```
 */
export function createPostgresCredentialStore(
  options: PostgresCredentialStoreOptions,
): PostgresCredentialStore {
  const where = 'createPostgresCredentialStore()';
  checkOptions(options, OPTIONS, where);
  const { credentials: credentialQuota, requests: requestQuota } = resolveCredentialQuotas(
    options.quotas,
    where,
  );
  const schema = schemaOf(options.schema, where);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(timeoutMs > 0))
    throw new KsadkError(
      'invalid_config',
      'createPostgresCredentialStore({ timeoutMs }) must be positive.',
    );
  const now = options.now ?? Date.now;
  const connection = openPostgres(options, where, timeoutMs);
  const { pool } = connection;
  const ready = migrateOnce(pool, schema.name);
  const credentials = `${schema.sql}.ksadk_credentials`;
  const requests = `${schema.sql}.ksadk_credential_requests`;
  const lockSpace = `ksadk_credentials:${schema.name}`;

  /** Begins a transaction holding the account's lock (names: a validated schema, a hex hash). */
  const lockAccount = (client: PoolClient, accountKey: string) =>
    client.query(
      `BEGIN; SET LOCAL lock_timeout = '${Math.ceil(timeoutMs / 2)}ms';
       SELECT pg_advisory_xact_lock(hashtext('${lockSpace}'), hashtext('${accountKey}'))`,
    );

  const countOf = async (client: PoolClient, table: string, accountKey: string, not = '') => {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE account_key = $1 AND ${
        table === credentials ? 'credential_key' : 'id'
      } <> $2`,
      [accountKey, not],
    );
    return rows[0]!.n;
  };

  const putCredential = (credential: StoredCredential) =>
    onClient(pool, async (client) => {
      const accountKey = keyOf(credential.accountId);
      const key = credentialKeyOf(credential);
      await lockAccount(client, accountKey);
      if ((await countOf(client, credentials, accountKey, key)) >= credentialQuota)
        throw credentialQuotaExceeded('credentials');
      const { sealed, ...body } = credential;
      await client.query(
        `INSERT INTO ${credentials}
           (credential_key, account_key, user_key, body, sealed_key_id, sealed_data, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (credential_key) DO UPDATE SET body = EXCLUDED.body,
           sealed_key_id = EXCLUDED.sealed_key_id, sealed_data = EXCLUDED.sealed_data,
           updated_at = EXCLUDED.updated_at`,
        [
          key,
          accountKey,
          keyOf(credential.accountId, credential.userId),
          JSON.stringify(body),
          sealed.keyId,
          sealed.data,
          credential.updatedAt,
        ],
      );
      await client.query('COMMIT');
    });

  const createRequest = (request: CredentialRequestRecord) =>
    onClient(
      pool,
      async (client) => {
        const accountKey = keyOf(request.accountId);
        const id = idKeyOf(request.id);
        await lockAccount(client, accountKey);
        if ((await countOf(client, requests, accountKey, id)) >= requestQuota) {
          await client.query(
            `DELETE FROM ${requests} WHERE account_key = $1 AND id <> $2
               AND (status = 'used' OR expires_at <= $3)`,
            [accountKey, id, now()],
          );
          if ((await countOf(client, requests, accountKey, id)) >= requestQuota) {
            await client.query('COMMIT'); // what was dropped stays dropped, as in memory
            throw credentialQuotaExceeded('credential requests');
          }
        }
        const { status, ...body } = request;
        await client.query(`DELETE FROM ${requests} WHERE id = $1`, [id]);
        await client.query(
          `INSERT INTO ${requests} (id, account_key, call_key, status, expires_at, body)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [
            id,
            accountKey,
            request.callId === undefined
              ? null
              : keyOf(request.accountId, request.userId, request.credentialId, request.callId),
            status,
            request.expiresAt,
            JSON.stringify(body),
          ],
        );
        await client.query('COMMIT');
      },
      isCredentialQuotaError,
    );

  const read = <T>(operation: string, work: () => Promise<T>): Promise<T> =>
    guarded(operation, timeoutMs, async () => {
      await ready();
      return work();
    });

  return {
    shared: true,
    putCredential: (credential) => read('save a credential', () => putCredential(credential)),
    getCredential: (key) =>
      read('read a credential', async () => {
        const { rows } = await pool.query<CredentialRow>(
          `SELECT body, sealed_key_id, sealed_data FROM ${credentials} WHERE credential_key = $1`,
          [credentialKeyOf(key)],
        );
        return rows[0] && credentialOfRow(rows[0]);
      }),
    deleteCredential: (key) =>
      read('delete a credential', async () => {
        const { rowCount } = await pool.query(
          `DELETE FROM ${credentials} WHERE credential_key = $1`,
          [credentialKeyOf(key)],
        );
        return rowCount === 1;
      }),
    listCredentials: ({ accountId, userId }) =>
      read('list credentials', async () => {
        const { rows } = await pool.query<CredentialRow>(
          `SELECT body, sealed_key_id, sealed_data FROM ${credentials}
           WHERE account_key = $1 AND ($2::text IS NULL OR user_key = $2) ORDER BY credential_key`,
          [keyOf(accountId), userId === undefined ? null : keyOf(accountId, userId)],
        );
        return rows.map(credentialOfRow);
      }),
    createRequest: (request) => read('save a credential request', () => createRequest(request)),
    getRequest: (id) =>
      read('read a credential request', async () => {
        const { rows } = await pool.query<{ body: string; status: string }>(
          `SELECT body, status FROM ${requests} WHERE id = $1`,
          [idKeyOf(id)],
        );
        return rows[0] && requestOfRow(rows[0]);
      }),
    findPendingRequest: ({ accountId, userId, credentialId, callId, now: at }) =>
      read('find a credential request', async () => {
        const { rows } = await pool.query<{ body: string; status: string }>(
          `SELECT body, status FROM ${requests}
           WHERE call_key = $1 AND status = 'pending' AND expires_at > $2
           ORDER BY seq DESC LIMIT 1`,
          [keyOf(accountId, userId, credentialId, callId), at],
        );
        return rows[0] && requestOfRow(rows[0]);
      }),
    useRequest: (id, at) =>
      read('use a credential request', async () => {
        const { rows } = await pool.query<{ body: string }>(
          `UPDATE ${requests} SET status = 'used'
           WHERE id = $1 AND status = 'pending' AND expires_at > $2 RETURNING body`,
          [idKeyOf(id), at],
        );
        return rows[0] && requestOfRow({ body: rows[0].body, status: 'pending' });
      }),
    close: () => connection.close(),
  };
}
