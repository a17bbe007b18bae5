import { KsadkError } from '@ksadk/core';
import { checkOptions } from '@ksadk/core/adapter';
import {
  type MemoryBackend,
  type MemoryRecord,
  newMemoryRecord,
  parseMemoryRecord,
} from '@ksadk/core/memory';
import { keyOf } from './approval-rows.js';
import type { PostgresConnectionOptions } from './postgres-connection.js';
import { schemaOf } from './schema-name.js';
import { openSearchTable } from './search-table.js';
import type { EmbedFunction } from './vector-support.js';

/** Options of {@link createPostgresMemoryBackend}. */
export interface PostgresMemoryBackendOptions extends PostgresConnectionOptions {
  /** The schema of the tables (created and migrated on first use). @default 'public' */
  schema?: string;
  /** Records kept per (account, user); the oldest go first. @default 5000 */
  maxRecordsPerScope?: number;
  /**
   * Embeds a text for vector search. Used only when the `vector` extension (pgvector) is installed
   * in the database; without it (or without this function) search is full-text.
   */
  embed?: EmbedFunction;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 10000 */
  timeoutMs?: number;
}

/** A {@link MemoryBackend} on PostgreSQL. */
export interface PostgresMemoryBackend extends MemoryBackend {
  readonly kind: 'postgres';
  /** How searches rank: `'vector'` (pgvector and `embed`) or `'full_text'`. */
  searchMethod(): Promise<'full_text' | 'vector'>;
  /** Ends the pool the backend opened from `connectionString`; a pool you passed stays open. */
  close(): Promise<void>;
}

/**
 * Long-term memory in PostgreSQL (`ksadk_memories`): one row per memory, scoped by the SHA-256 of
 * the (account, user) pair, so no id — whatever separators, case, quotes or NUL it holds — reaches
 * another scope. Every value is a query parameter.
 *
 * Search is full-text: a generated `tsvector` column ('simple' configuration, GIN index) over
 * core's search terms of the content (CJK as characters and bigrams), ranked by `ts_rank_cd`,
 * ties to the newest; an empty query gives the newest. A query is read only as far as its first
 * 2,000 characters and 64 terms. With an `embed` function and the `vector` extension installed,
 * an `embedding` column is added and searches rank by cosine similarity instead. A save inserts
 * one row and trims the scope to its newest `maxRecordsPerScope`; concurrent saves from any number
 * of processes all land.
 *
 * @example
 * ```ts
 * const memory = createPostgresMemoryBackend({ connectionString: process.env.DATABASE_URL, schema: 'agents' });
 * const tools = createMemoryToolset({ memory });
 * ```
 */
export function createPostgresMemoryBackend(
  options: PostgresMemoryBackendOptions,
): PostgresMemoryBackend {
  checkOptions(
    options,
    {
      pool: true,
      connectionString: true,
      schema: true,
      maxRecordsPerScope: true,
      embed: true,
      timeoutMs: true,
    },
    'createPostgresMemoryBackend()',
  );
  const schema = schemaOf(options.schema, 'createPostgresMemoryBackend()');
  const max = options.maxRecordsPerScope ?? 5000;
  if (!Number.isInteger(max) || max < 1)
    throw new KsadkError(
      'invalid_config',
      'createPostgresMemoryBackend({ maxRecordsPerScope }) must be a positive whole number.',
    );
  const store = openSearchTable(options, schema, 'ksadk_memories', 'createPostgresMemoryBackend()');
  const { pool, table, ready } = store;

  return {
    kind: 'postgres',
    save: (scope, entry) =>
      store.run('save a memory', async (): Promise<MemoryRecord> => {
        const found = await ready();
        const record = newMemoryRecord(entry);
        const key = keyOf(scope.accountId, scope.userId);
        const { searchText, embedding } = await store.indexOf(found, record.content);
        await pool.query(
          `INSERT INTO ${table} (scope_key, record, search_text${embedding ? ', embedding' : ''})
           VALUES ($1, $2, $3${embedding && found.kind === 'vector' ? `, $4::${found.type}` : ''})`,
          [key, JSON.stringify(record), searchText, ...(embedding ? [embedding] : [])],
        );
        await pool.query(
          `DELETE FROM ${table} WHERE scope_key = $1 AND seq <= (
             SELECT seq FROM ${table} WHERE scope_key = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1)`,
          [key, max],
        );
        return record;
      }),
    search: (scope, query, limit, searchOptions = {}) =>
      store.run(
        'search memories',
        async () => {
          if (!(limit > 0)) return [];
          const rows = await store.search({
            keyColumn: 'scope_key',
            key: keyOf(scope.accountId, scope.userId),
            valueColumn: 'record',
            query,
            limit: Math.min(Math.floor(limit), max),
            withoutTerms: 'recent',
          });
          return rows.flatMap((row) => {
            const record = parseMemoryRecord(row.value);
            return record ? [{ ...record, score: row.score }] : [];
          });
        },
        { signal: searchOptions.signal },
      ),
    searchMethod: async () => (await ready()).kind,
    close: store.close,
  };
}
