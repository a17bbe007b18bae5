import type { Pool, PoolClient } from 'pg';

/** Embeds a text as a vector (for pgvector cosine similarity). */
export type EmbedFunction = (text: string) => Promise<number[]>;

/**
 * The schema of the `vector` extension when it is installed in the database, else `undefined`.
 * Only an installed extension counts: the stores never run `CREATE EXTENSION` themselves.
 */
export async function vectorSchemaOf(client: PoolClient): Promise<string | undefined> {
  const { rows } = await client.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'vector'`,
  );
  return rows[0]?.schema;
}

/** Adds the `embedding` column to `table` (under an advisory lock, so concurrent callers agree). */
export async function addEmbeddingColumn(
  client: PoolClient,
  table: string,
  vectorSchema: string,
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('ksadk_embedding'), hashtext($1))`, [
      table,
    ]);
    await client.query(
      `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS embedding "${vectorSchema.replaceAll('"', '""')}".vector`,
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** A vector as pgvector's text form, refusing anything that is not a list of finite numbers. */
export function vectorLiteral(values: unknown): string {
  if (
    !Array.isArray(values) ||
    values.length === 0 ||
    !values.every((value) => typeof value === 'number' && Number.isFinite(value))
  )
    throw new TypeError('embed() must resolve to a non-empty array of finite numbers');
  return `[${values.join(',')}]`;
}

/** How a store searches: PostgreSQL full-text search, or pgvector cosine similarity. */
export type SearchMethod =
  | { readonly kind: 'full_text' }
  | {
      readonly kind: 'vector';
      /** The quoted type, `"<schema>".vector`. */
      readonly type: string;
      /** The cosine-distance operator, schema-qualified. */
      readonly distance: string;
    };

/**
 * Vector search when an `embed` function is given and the `vector` extension is installed (the
 * `embedding` column is added to `table` then); full-text search otherwise.
 */
export async function searchMethodOf(
  pool: Pool,
  table: string,
  embed: EmbedFunction | undefined,
): Promise<SearchMethod> {
  if (!embed) return { kind: 'full_text' };
  const client = await pool.connect();
  try {
    const schema = await vectorSchemaOf(client);
    if (schema === undefined) return { kind: 'full_text' };
    await addEmbeddingColumn(client, table, schema);
    const quoted = `"${schema.replaceAll('"', '""')}"`;
    return { kind: 'vector', type: `${quoted}.vector`, distance: `OPERATOR(${quoted}.<=>)` };
  } finally {
    client.release();
  }
}
