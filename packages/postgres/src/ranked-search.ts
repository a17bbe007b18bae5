import { MEMORY_QUERY_MAX_CHARS } from '@ksadk/core/memory';
import type { Pool } from 'pg';
import { queryPlanOf } from './search-terms.js';
import { type EmbedFunction, type SearchMethod, vectorLiteral } from './vector-support.js';

/** One search over a scoped table. */
export interface RankedSearch {
  readonly pool: Pool;
  /** Quoted, schema-qualified table. */
  readonly table: string;
  /** The column that scopes rows, and the caller's key. */
  readonly keyColumn: 'scope_key' | 'account_key';
  readonly key: string;
  /** The column returned as `value`. */
  readonly valueColumn: 'record' | 'document';
  readonly query: string;
  readonly limit: number;
  readonly method: SearchMethod;
  readonly embed: EmbedFunction | undefined;
  /** What a query without terms gives: the newest rows, or nothing. */
  readonly withoutTerms: 'recent' | 'none';
}

/** A row found, with its score (0 for the newest-first listing). */
export interface RankedRow {
  readonly value: string;
  readonly score: number;
}

const round = (score: number): number => Math.round(score * 1000) / 1000;

/**
 * Rows of one scope matching a query, best first, every value a parameter: full-text search
 * (`ts_rank_cd` over the `search` tsvector, ties to the newest), or cosine similarity when the
 * store searches by vector. A query without terms gives the newest rows (score 0) or nothing.
 */
export async function rankedSearch(search: RankedSearch): Promise<RankedRow[]> {
  const { pool, table, keyColumn, key, valueColumn, limit, method } = search;
  const plan = queryPlanOf(search.query);
  const recent = async (): Promise<RankedRow[]> => {
    const { rows } = await pool.query<{ value: string }>(
      `SELECT ${valueColumn} AS value FROM ${table} WHERE ${keyColumn} = $1 ORDER BY seq DESC LIMIT $2`,
      [key, limit],
    );
    return rows.map((row) => ({ value: row.value, score: 0 }));
  };
  if (plan.kind === 'recent') return search.withoutTerms === 'recent' ? recent() : [];
  if (method.kind === 'vector' && search.embed) {
    const vector = vectorLiteral(await search.embed(search.query.slice(0, MEMORY_QUERY_MAX_CHARS)));
    const { rows } = await pool.query<{ value: string; score: number }>(
      `SELECT ${valueColumn} AS value, 1 - (embedding ${method.distance} $2::${method.type}) AS score
       FROM ${table} WHERE ${keyColumn} = $1 AND embedding IS NOT NULL
       ORDER BY embedding ${method.distance} $2::${method.type}, seq DESC LIMIT $3`,
      [key, vector, limit],
    );
    return rows.map((row) => ({ value: row.value, score: round(Number(row.score)) }));
  }
  if (plan.kind === 'none') return [];
  const { rows } = await pool.query<{ value: string; score: number }>(
    `SELECT ${valueColumn} AS value, ts_rank_cd(search, q) AS score
     FROM ${table}, to_tsquery('simple', $2) AS q
     WHERE ${keyColumn} = $1 AND search @@ q
     ORDER BY score DESC, seq DESC LIMIT $3`,
    [key, plan.tsquery, limit],
  );
  return rows.map((row) => ({ value: row.value, score: round(Number(row.score)) }));
}
