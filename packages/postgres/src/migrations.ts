import { checkOptions } from '@ksadk/core/adapter';
import type { Client, Pool, PoolClient } from 'pg';
import { schemaOf } from './schema-name.js';
import { storeError } from './store-error.js';

/** One schema change, applied once per schema, in version order. */
interface Migration {
  readonly version: number;
  readonly name: string;
  /** The statements, for schema `s` (already quoted). */
  sql(s: string): string;
}

// Append only: a shipped migration never changes (a database may have applied it already).
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'approvals',
    sql: (s) => `
      CREATE TABLE ${s}.ksadk_approvals (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        binding_key text NOT NULL,
        account_key text NOT NULL,
        session_key text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'consumed')),
        arguments_chars bigint NOT NULL CHECK (arguments_chars >= 0),
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        decided_at bigint,
        reason text,
        consumed_at timestamptz,
        body text NOT NULL,
        arguments text NOT NULL
      );
      CREATE INDEX ksadk_approvals_binding ON ${s}.ksadk_approvals (binding_key, seq DESC);
      CREATE INDEX ksadk_approvals_session ON ${s}.ksadk_approvals (session_key, seq);
      CREATE INDEX ksadk_approvals_account ON ${s}.ksadk_approvals (account_key, seq);
      CREATE INDEX ksadk_approvals_expiry ON ${s}.ksadk_approvals (expires_at);
      CREATE TABLE ${s}.ksadk_approval_totals (
        id integer PRIMARY KEY CHECK (id = 1),
        records bigint NOT NULL,
        chars bigint NOT NULL
      );
      INSERT INTO ${s}.ksadk_approval_totals VALUES (1, 0, 0);`,
  },
  {
    version: 2,
    name: 'memories',
    sql: (s) => `
      CREATE TABLE ${s}.ksadk_memories (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        scope_key text NOT NULL,
        record text NOT NULL,
        search_text text NOT NULL,
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_text)) STORED,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX ksadk_memories_scope ON ${s}.ksadk_memories (scope_key, seq DESC);
      CREATE INDEX ksadk_memories_search ON ${s}.ksadk_memories USING gin (search);`,
  },
  {
    version: 3,
    name: 'knowledge',
    sql: (s) => `
      CREATE TABLE ${s}.ksadk_knowledge (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_key text NOT NULL,
        document text NOT NULL,
        search_text text NOT NULL,
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_text)) STORED,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX ksadk_knowledge_account ON ${s}.ksadk_knowledge (account_key, seq DESC);
      CREATE INDEX ksadk_knowledge_search ON ${s}.ksadk_knowledge USING gin (search);`,
  },
];

/** The newest migration version this package ships. */
export const LATEST_MIGRATION = MIGRATIONS.at(-1)!.version;

/** Options of {@link migratePostgres}. */
export interface MigratePostgresOptions {
  /** The schema to create or update (created when missing). @default 'public' */
  schema?: string;
}

/** What {@link migratePostgres} did. */
export interface MigrationOutcome {
  /** Versions applied by this call (empty when the schema was already up to date). */
  readonly applied: readonly number[];
  /** The schema's version afterwards. */
  readonly version: number;
}

/** Whether `target` is a Pool (whose connections are borrowed) rather than one connection. */
const isPool = (target: Pool | Client | PoolClient): target is Pool =>
  'totalCount' in target && 'idleCount' in target;

/**
 * Creates or updates the KsADK tables in a schema: `ksadk_approvals`, `ksadk_memories` and
 * `ksadk_knowledge`, with their indexes, recorded in `ksadk_schema_migrations`. Every version is
 * applied once, in one transaction under a transaction-level advisory lock on the schema, so any
 * number of processes may call this at once (the stores do, on first use): one applies, the
 * others wait and find nothing left to do. Pass a Pool, or a connection that is not inside a
 * transaction of its own.
 *
 * @throws {KsadkError} `invalid_config` for a bad schema name; `store_unavailable` when the
 * database cannot be reached or refuses (the message carries no credentials).
 *
 * @example
 * ```ts
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * const { applied } = await migratePostgres(pool, { schema: 'agents' });
 * ```
 */
export async function migratePostgres(
  target: Pool | Client | PoolClient,
  options: MigratePostgresOptions = {},
): Promise<MigrationOutcome> {
  checkOptions(options, { schema: true }, 'migratePostgres()');
  const schema = schemaOf(options.schema, 'migratePostgres()');
  let client: Client | PoolClient;
  try {
    client = isPool(target) ? await target.connect() : target;
  } catch (error) {
    throw storeError('connect to migrate the schema', error);
  }
  const applied: number[] = [];
  let failed = false;
  try {
    await client.query('BEGIN');
    // Bounded: a lock held by a stuck process fails this call instead of hanging it.
    await client.query(`SET LOCAL statement_timeout = '60s'`);
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('ksadk_migrations'), hashtext($1))`, [
      schema.name,
    ]);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
      schema.name,
    ]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${schema.sql}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema.sql}.ksadk_schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = await client.query<{ version: number }>(
      `SELECT version FROM ${schema.sql}.ksadk_schema_migrations`,
    );
    const have = new Set(done.rows.map((row) => Number(row.version)));
    for (const migration of MIGRATIONS) {
      if (have.has(migration.version)) continue;
      await client.query(migration.sql(schema.sql));
      await client.query(
        `INSERT INTO ${schema.sql}.ksadk_schema_migrations (version, name) VALUES ($1, $2)`,
        [migration.version, migration.name],
      );
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return { applied, version: Math.max(LATEST_MIGRATION, ...have) };
  } catch (error) {
    failed = true;
    await client.query('ROLLBACK').catch(() => undefined);
    throw storeError('migrate the schema', error);
  } finally {
    if (isPool(target)) (client as PoolClient).release(failed);
  }
}

/**
 * Runs {@link migratePostgres} once per store: the first call starts it, every call waits for
 * it; a failure is not remembered (the next call tries again).
 */
export function migrateOnce(pool: Pool, schema: string): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= migratePostgres(pool, { schema }).then(
      () => undefined,
      (error: unknown) => {
        running = undefined;
        throw error;
      },
    );
    return running;
  };
}
