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
  {
    version: 4,
    name: 'approval inbox, standing grants, audit log',
    // Filter columns hold hashes of the ids (rows written before them have NULL there and are
    // filtered by the store itself); decided_by and edited are JSON text, like reason.
    sql: (s) => `
      ALTER TABLE ${s}.ksadk_approvals
        ADD COLUMN tool_key text,
        ADD COLUMN user_key text,
        ADD COLUMN session_id_key text,
        ADD COLUMN decide_by bigint,
        ADD COLUMN decided_by text,
        ADD COLUMN edited text;
      CREATE INDEX ksadk_approvals_account_pending ON ${s}.ksadk_approvals (account_key, seq)
        WHERE status = 'pending';
      CREATE INDEX ksadk_approvals_seq ON ${s}.ksadk_approvals (seq);
      CREATE INDEX ksadk_approvals_pending ON ${s}.ksadk_approvals (seq) WHERE status = 'pending';
      CREATE TABLE ${s}.ksadk_standing_grants (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        account_key text NOT NULL,
        tool_key text NOT NULL,
        user_key text NOT NULL,
        session_id_key text NOT NULL,
        expires_at double precision NOT NULL,
        revoked_at double precision,
        grant_body text NOT NULL
      );
      CREATE INDEX ksadk_standing_grants_account ON ${s}.ksadk_standing_grants (account_key, seq);
      CREATE INDEX ksadk_standing_grants_tool ON ${s}.ksadk_standing_grants (account_key, tool_key);
      CREATE INDEX ksadk_standing_grants_seq ON ${s}.ksadk_standing_grants (seq);
      CREATE TABLE ${s}.ksadk_approval_audit (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_key text NOT NULL,
        at double precision NOT NULL,
        entry text NOT NULL
      );
      CREATE INDEX ksadk_approval_audit_account ON ${s}.ksadk_approval_audit (account_key, seq);
      CREATE TABLE ${s}.ksadk_approval_audit_counts (
        account_key text PRIMARY KEY,
        records bigint NOT NULL
      );`,
  },
  {
    version: 5,
    name: 'credentials',
    // Keys are hashes of the ids; the sealed secret is kept as given (unreadable without the key).
    sql: (s) => `
      CREATE TABLE ${s}.ksadk_credentials (
        credential_key text PRIMARY KEY,
        account_key text NOT NULL,
        user_key text NOT NULL,
        body text NOT NULL,
        sealed_key_id text NOT NULL,
        sealed_data text NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX ksadk_credentials_account ON ${s}.ksadk_credentials (account_key, user_key);
      CREATE TABLE ${s}.ksadk_credential_requests (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        account_key text NOT NULL,
        call_key text,
        status text NOT NULL CHECK (status IN ('pending', 'used')),
        expires_at bigint NOT NULL,
        body text NOT NULL
      );
      CREATE INDEX ksadk_credential_requests_account ON ${s}.ksadk_credential_requests (account_key, seq);
      CREATE INDEX ksadk_credential_requests_call ON ${s}.ksadk_credential_requests (call_key, seq DESC)
        WHERE status = 'pending';`,
  },
  {
    version: 6,
    name: 'executions',
    // One row per call, a column per field of the record; `id` is the record id when plain (else
    // a hash), and the keys are hashes of the ids: a call (account, session, call id) has one row.
    // `ksadk_execution_begin` is the whole of `begin` in one statement: the create-if-absent and
    // the quotas, under an advisory lock per account (each statement of a function sees what the
    // lock's previous holder committed). The store's records and inline result characters are a
    // counter row, as for approvals; each account's records one too (`ksadk_execution_counts`).
    sql: (s) => `
      CREATE TABLE ${s}.ksadk_executions (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        call_key text NOT NULL,
        account_key text NOT NULL,
        session_key text NOT NULL,
        execution_id text NOT NULL,
        call_id text NOT NULL,
        call_id_given boolean NOT NULL,
        tool_name text NOT NULL,
        args_digest text NOT NULL,
        account_id text NOT NULL,
        user_id text NOT NULL,
        session_id text NOT NULL,
        invocation_id text,
        approval_id text,
        standing_grant_id text,
        status text NOT NULL CHECK (status IN ('started', 'succeeded', 'failed', 'unknown')),
        attempt integer NOT NULL,
        started_at bigint NOT NULL,
        deadline_at bigint NOT NULL,
        ended_at bigint,
        error_type text,
        result_handle text,
        result_json text,
        result_chars bigint NOT NULL DEFAULT 0,
        expires_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX ksadk_executions_call ON ${s}.ksadk_executions (call_key);
      CREATE INDEX ksadk_executions_session ON ${s}.ksadk_executions (session_key, seq);
      CREATE INDEX ksadk_executions_account ON ${s}.ksadk_executions (account_key, seq);
      CREATE INDEX ksadk_executions_seq ON ${s}.ksadk_executions (seq);
      CREATE INDEX ksadk_executions_expiry ON ${s}.ksadk_executions (expires_at);
      CREATE INDEX ksadk_executions_results ON ${s}.ksadk_executions (seq)
        WHERE result_json IS NOT NULL;
      CREATE INDEX ksadk_executions_account_results ON ${s}.ksadk_executions (account_key, seq)
        WHERE result_json IS NOT NULL;
      CREATE TABLE ${s}.ksadk_execution_totals (
        id integer PRIMARY KEY CHECK (id = 1),
        records bigint NOT NULL,
        result_chars bigint NOT NULL
      );
      INSERT INTO ${s}.ksadk_execution_totals VALUES (1, 0, 0);
      CREATE TABLE ${s}.ksadk_execution_counts (
        account_key text PRIMARY KEY,
        records bigint NOT NULL
      );

      -- Makes room in a full scope (the rows whose column 'col' is 'key') when 'held' records
      -- count against 'quota', as core's in-memory store does: its expired rows (when the sweep
      -- left some), then its oldest that are not running (ended, or started and past their
      -- deadline) until a tenth of 'quota' is free. Rows another transaction holds are skipped.
      -- 'gone' is how many it deleted, 'freed' their inline result characters.
      CREATE FUNCTION ${s}.ksadk_execution_room(
        col text, key text, held bigint, quota bigint, at bigint, backlog boolean,
        OUT gone bigint, OUT freed bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        target bigint := quota - greatest(1, quota / 10);
        n bigint;
        chars bigint;
      BEGIN
        gone := 0;
        freed := 0;
        IF backlog THEN
          EXECUTE format('WITH d AS (DELETE FROM ${s}.ksadk_executions WHERE id IN (
              SELECT id FROM ${s}.ksadk_executions WHERE %I = $1 AND expires_at <= $2
              FOR UPDATE SKIP LOCKED) RETURNING result_chars)
            SELECT count(*), coalesce(sum(result_chars), 0) FROM d', col)
            INTO gone, freed USING key, at;
        END IF;
        IF held - gone > target THEN
          EXECUTE format('WITH d AS (DELETE FROM ${s}.ksadk_executions WHERE id IN (
              SELECT id FROM ${s}.ksadk_executions
              WHERE %I = $1 AND (status <> ''started'' OR deadline_at <= $2 OR expires_at <= $2)
              ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING result_chars)
            SELECT count(*), coalesce(sum(result_chars), 0) FROM d', col)
            INTO n, chars USING key, at, held - gone - target;
          gone := gone + n;
          freed := freed + chars;
        END IF;
      END $fn$;

      -- ExecutionStore.begin: 'r' is the new row (as JSON, without seq), 'at' the store's clock.
      -- Returns {"outcome": "existing", "row": …} when the call has an unexpired row that is not a
      -- failed run of the same tool and arguments; else {"outcome": "created", "attempt": n} (the
      -- previous attempt + 1 for a retry), or {"outcome": "full"} when the record cannot fit (what
      -- was deleted for room stays deleted). Expired rows go first, up to 1,000 per call. A session
      -- is counted (it holds at most 'per_session' rows); an account by its row in
      -- ksadk_execution_counts, written only under the account's lock: an upper bound (rows of it
      -- other accounts' calls deleted are still in it), counted afresh when it says full. A full
      -- store deletes anyone's expired rows, then this account's own: never another's live rows.
      CREATE FUNCTION ${s}.ksadk_execution_begin(
        r jsonb, at bigint, per_session bigint, per_account bigint, total bigint, wait_ms integer)
      RETURNS jsonb LANGUAGE plpgsql AS $fn$
      DECLARE
        rec ${s}.ksadk_executions := jsonb_populate_record(NULL::${s}.ksadk_executions, r);
        prev ${s}.ksadk_executions;
        next_attempt integer := rec.attempt;
        dropped bigint := 0; -- rows deleted, from any account (the store's total)
        freed bigint := 0; -- their inline result characters
        own bigint := 0; -- of them, this account's
        backlog boolean;
        in_session bigint;
        in_account bigint;
        n bigint;
        gone bigint;
        chars bigint;
      BEGIN
        PERFORM set_config('lock_timeout', wait_ms || 'ms', true);
        PERFORM pg_advisory_xact_lock(hashtext('ksadk_executions:${s}'), hashtext(rec.account_key));
        SELECT * INTO prev FROM ${s}.ksadk_executions WHERE call_key = rec.call_key;
        IF FOUND THEN
          IF prev.expires_at > at THEN
            IF prev.status <> 'failed' OR prev.tool_name <> rec.tool_name
              OR prev.args_digest <> rec.args_digest THEN
              RETURN jsonb_build_object('outcome', 'existing', 'row', to_jsonb(prev));
            END IF;
            next_attempt := prev.attempt + 1;
          END IF;
          DELETE FROM ${s}.ksadk_executions WHERE id = prev.id;
          dropped := 1;
          freed := prev.result_chars;
          own := 1;
        END IF;
        WITH d AS (DELETE FROM ${s}.ksadk_executions WHERE id IN (
            SELECT id FROM ${s}.ksadk_executions WHERE expires_at <= at
            ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED) RETURNING account_key, result_chars)
        SELECT count(*), count(*) FILTER (WHERE account_key = rec.account_key),
          coalesce(sum(result_chars), 0)
        INTO n, gone, chars FROM d;
        backlog := n = 1000;
        dropped := dropped + n;
        freed := freed + chars;
        own := own + gone;
        SELECT records INTO in_account FROM ${s}.ksadk_execution_counts
        WHERE account_key = rec.account_key;
        in_account := greatest(coalesce(in_account, 0) - own, 0);

        SELECT count(*) INTO in_session FROM ${s}.ksadk_executions WHERE session_key = rec.session_key;
        IF in_session >= per_session THEN
          SELECT * INTO gone, chars
          FROM ${s}.ksadk_execution_room('session_key', rec.session_key, in_session, per_session, at, backlog);
          dropped := dropped + gone;
          freed := freed + chars;
          in_session := in_session - gone;
          in_account := greatest(in_account - gone, 0);
        END IF;
        IF in_session < per_session AND in_account >= per_account THEN
          SELECT count(*) INTO in_account FROM ${s}.ksadk_executions WHERE account_key = rec.account_key;
          IF in_account >= per_account THEN
            SELECT * INTO gone, chars
            FROM ${s}.ksadk_execution_room('account_key', rec.account_key, in_account, per_account, at, backlog);
            dropped := dropped + gone;
            freed := freed + chars;
            in_account := in_account - gone;
          END IF;
        END IF;
        IF in_session >= per_session OR in_account >= per_account THEN
          INSERT INTO ${s}.ksadk_execution_counts VALUES (rec.account_key, in_account)
          ON CONFLICT (account_key) DO UPDATE SET records = EXCLUDED.records;
          IF dropped > 0 THEN
            UPDATE ${s}.ksadk_execution_totals
            SET records = records - dropped, result_chars = result_chars - freed WHERE id = 1;
          END IF;
          RETURN jsonb_build_object('outcome', 'full');
        END IF;
        -- The store's total: its counter row, taken last (every begin of the store waits on it).
        UPDATE ${s}.ksadk_execution_totals
        SET records = records - dropped + 1, result_chars = result_chars - freed + rec.result_chars
        WHERE id = 1 AND records - dropped < total;
        IF NOT FOUND THEN
          -- Full: anyone's expired rows go, then this account's own; counted afresh under the
          -- counter's lock (a hand-edited table drifts).
          PERFORM 1 FROM ${s}.ksadk_execution_totals WHERE id = 1 FOR UPDATE;
          IF backlog THEN
            WITH d AS (DELETE FROM ${s}.ksadk_executions WHERE id IN (
                SELECT id FROM ${s}.ksadk_executions WHERE expires_at <= at FOR UPDATE SKIP LOCKED)
              RETURNING account_key, result_chars)
            SELECT count(*) FILTER (WHERE account_key = rec.account_key),
              coalesce(sum(result_chars), 0)
            INTO gone, chars FROM d;
            freed := freed + chars;
            in_account := greatest(in_account - gone, 0);
          END IF;
          SELECT count(*) INTO n FROM ${s}.ksadk_executions;
          IF n >= total THEN
            SELECT * INTO gone, chars
            FROM ${s}.ksadk_execution_room('account_key', rec.account_key, n, total, at, false);
            freed := freed + chars;
            n := n - gone;
            in_account := greatest(in_account - gone, 0);
          END IF;
          IF n >= total THEN
            UPDATE ${s}.ksadk_execution_totals
            SET records = n, result_chars = result_chars - freed WHERE id = 1;
            INSERT INTO ${s}.ksadk_execution_counts VALUES (rec.account_key, in_account)
            ON CONFLICT (account_key) DO UPDATE SET records = EXCLUDED.records;
            RETURN jsonb_build_object('outcome', 'full');
          END IF;
          UPDATE ${s}.ksadk_execution_totals
          SET records = n + 1, result_chars = result_chars - freed + rec.result_chars WHERE id = 1;
        END IF;
        INSERT INTO ${s}.ksadk_executions (
          id, call_key, account_key, session_key, execution_id, call_id, call_id_given, tool_name,
          args_digest, account_id, user_id, session_id, invocation_id, approval_id,
          standing_grant_id, status, attempt, started_at, deadline_at, ended_at,
          error_type, result_handle, result_json, result_chars, expires_at)
        SELECT id, call_key, account_key, session_key, execution_id, call_id, call_id_given, tool_name,
          args_digest, account_id, user_id, session_id, invocation_id, approval_id,
          standing_grant_id, status, attempt, started_at, deadline_at, ended_at,
          error_type, result_handle, result_json, result_chars, expires_at
        FROM jsonb_populate_record(NULL::${s}.ksadk_executions,
          r || jsonb_build_object('attempt', next_attempt));
        INSERT INTO ${s}.ksadk_execution_counts VALUES (rec.account_key, in_account + 1)
        ON CONFLICT (account_key) DO UPDATE SET records = EXCLUDED.records;
        RETURN jsonb_build_object('outcome', 'created', 'attempt', next_attempt);
      END $fn$;`,
  },
  {
    version: 7,
    name: 'execution arguments',
    // The arguments a gateway records when asked (`executions.recordArguments`): written by the
    // store right after `ksadk_execution_begin` created the row, so that function stays as it is.
    sql: (s) => `ALTER TABLE ${s}.ksadk_executions ADD COLUMN arguments_json text;`,
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
 * Creates or updates the KsADK tables in a schema: `ksadk_approvals` (with `ksadk_standing_grants`
 * and the audit log `ksadk_approval_audit`), `ksadk_credentials` and `ksadk_credential_requests`,
 * `ksadk_executions` (with the functions its `begin` calls), `ksadk_memories` and
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
