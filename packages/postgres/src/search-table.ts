import type { Pool } from 'pg';
import { migrateOnce } from './migrations.js';
import { openPostgres, type PostgresConnectionOptions } from './postgres-connection.js';
import { type RankedRow, type RankedSearch, rankedSearch } from './ranked-search.js';
import { searchTextOf } from './search-terms.js';
import { guarded } from './store-error.js';
import {
  type EmbedFunction,
  type SearchMethod,
  searchMethodOf,
  vectorLiteral,
} from './vector-support.js';

/** The columns a row stores to be found. */
export interface IndexedText {
  readonly searchText: string;
  readonly embedding: string | null;
}

/** The searchable table of a store (memories, knowledge) and the connection it lives on. */
export interface SearchTable {
  readonly pool: Pool;
  /** The table, schema-qualified and quoted for SQL. */
  readonly table: string;
  /**
   * Migrates the schema (once), then resolves how searches rank: detected on first use and kept;
   * a detection that fails is tried again on the next call.
   */
  ready(): Promise<SearchMethod>;
  /**
   * What a row of `text` stores to be found: its `search_text` (core's search terms) and, when
   * searches rank by vector, its embedding (pgvector's text form; else `null`).
   */
  indexOf(method: SearchMethod, text: string): Promise<IndexedText>;
  /** Rows of one scope matching a query, best first ({@link rankedSearch} on this table). */
  search(search: Omit<RankedSearch, 'pool' | 'table' | 'method' | 'embed'>): Promise<RankedRow[]>;
  /** The store's bound on each operation, in milliseconds (`timeoutMs`). @default 10000 */
  readonly timeoutMs: number;
  /**
   * Runs one operation of the store ({@link guarded}), bounded by {@link SearchTable.timeoutMs} (or
   * by `bounds.timeoutMs`) and by `bounds.signal`: failures become `store_unavailable`.
   */
  run<T>(
    operation: string,
    work: () => Promise<T>,
    bounds?: { timeoutMs?: number; signal?: AbortSignal | undefined },
  ): Promise<T>;
  /** Ends the pool the store opened from `connectionString`; a pool given to it stays open. */
  close(): Promise<void>;
}

/**
 * Opens the connection of a store searched by {@link rankedSearch} (the memory backend, the
 * knowledge base) and names its table in `schema` (already checked by `schemaOf`).
 *
 * @throws {KsadkError} `invalid_config` unless exactly one of `pool` and `connectionString` is given.
 */
export function openSearchTable(
  options: PostgresConnectionOptions & { embed?: EmbedFunction; timeoutMs?: number },
  schema: { name: string; sql: string },
  name: 'ksadk_memories' | 'ksadk_knowledge',
  where: string,
): SearchTable {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { embed } = options;
  const connection = openPostgres(options, where, timeoutMs);
  const { pool } = connection;
  const migrate = migrateOnce(pool, schema.name);
  const table = `${schema.sql}.${name}`;
  let method: Promise<SearchMethod> | undefined;
  const ready = async (): Promise<SearchMethod> => {
    await migrate();
    method ??= searchMethodOf(pool, table, embed).catch((error: unknown) => {
      method = undefined;
      throw error;
    });
    return method;
  };
  return {
    pool,
    table,
    ready,
    timeoutMs,
    run: (operation, work, bounds) =>
      guarded(operation, bounds?.timeoutMs ?? timeoutMs, work, bounds?.signal),
    indexOf: async (found, text) => ({
      searchText: searchTextOf(text),
      embedding: found.kind === 'vector' && embed ? vectorLiteral(await embed(text)) : null,
    }),
    search: async (search) =>
      rankedSearch({ ...search, pool, table, method: await ready(), embed }),
    close: () => connection.close(),
  };
}
