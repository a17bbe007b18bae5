import type { MemoryRecord, MemorySearchOptions, ScoredMemory } from './memory-backend.js';
import { createTimeSlice } from './yield-to-event-loop.js';

/** Longest `load_memory` query, in characters; the embedded backends read no further. */
export const MEMORY_QUERY_MAX_CHARS = 2000;
/** Distinct query terms used for ranking; the rest of a query is ignored. */
export const MEMORY_QUERY_MAX_TERMS = 64;

/** A record with the terms of its content, computed once when it is saved or read. */
export interface IndexedMemory {
  readonly record: MemoryRecord;
  readonly terms: ReadonlySet<string>;
}

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

/**
 * Search terms: lower-cased words, and CJK text as single characters and bigrams, each once,
 * in the order they first appear.
 *
 * @example
 * ```ts
 * memoryTerms('Likes 张三'); // ["likes", "张", "张三", "三"]
 * ```
 */
export function memoryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    const token = match[0];
    if (CJK.test(token)) {
      const chars = [...token];
      for (let index = 0; index < chars.length; index += 1) {
        terms.add(chars[index]!);
        if (index + 1 < chars.length) terms.add(chars[index]! + chars[index + 1]!);
      }
    } else {
      terms.add(token);
    }
  }
  return [...terms];
}

/**
 * The terms a query is ranked by: those of its first {@link MEMORY_QUERY_MAX_CHARS}
 * characters, at most {@link MEMORY_QUERY_MAX_TERMS} of them. Ranking costs at most
 * `records × MEMORY_QUERY_MAX_TERMS` set look-ups, whatever the query.
 *
 * @example
 * ```ts
 * memoryQueryTerms('Coffee or tea?'); // ["coffee", "or", "tea"]
 * ```
 */
export function memoryQueryTerms(query: string): string[] {
  return memoryTerms(query.slice(0, MEMORY_QUERY_MAX_CHARS)).slice(0, MEMORY_QUERY_MAX_TERMS);
}

/**
 * Indexes a record for {@link rankMemories}: its content is tokenised here, once, never again
 * per search.
 *
 * @example
 * ```ts
 * const entry = indexMemory({ id: 'mem_1', content: 'Likes tea', created_at: new Date().toISOString() });
 * entry.terms.has('tea'); // true
 * ```
 */
export function indexMemory(record: MemoryRecord): IndexedMemory {
  return { record, terms: new Set(memoryTerms(record.content)) };
}

/**
 * Ranks indexed records (oldest first) against a query: shared terms weighted by rarity, ties to
 * the newest; an empty query gives the newest records with score 0. The work yields to the event
 * loop every few milliseconds, so a large scope never stalls other requests or the gateway's
 * timeout, and stops with the signal's reason when `options.signal` aborts.
 *
 * @example
 * ```ts
 * const best = await rankMemories(entries, 'coffee or tea?', 5, { signal });
 * ```
 */
export async function rankMemories(
  entries: readonly IndexedMemory[],
  query: string,
  limit: number,
  options: MemorySearchOptions = {},
): Promise<ScoredMemory[]> {
  const { signal } = options;
  signal?.throwIfAborted();
  if (!(limit > 0)) return [];
  const queryTerms = memoryQueryTerms(query);
  if (queryTerms.length === 0) {
    return entries
      .slice(-limit)
      .reverse()
      .map((entry) => ({ ...entry.record, score: 0 }));
  }
  const documentFrequency = new Array<number>(queryTerms.length).fill(0);
  const matches: { index: number; hits: number[] }[] = [];
  const slice = createTimeSlice(signal);
  for (let index = 0; index < entries.length; index += 1) {
    if (slice.due()) await slice.next();
    const terms = entries[index]!.terms;
    const hits: number[] = [];
    for (let term = 0; term < queryTerms.length; term += 1) {
      if (!terms.has(queryTerms[term]!)) continue;
      documentFrequency[term]! += 1;
      hits.push(term);
    }
    if (hits.length > 0) matches.push({ index, hits });
  }
  const weight = documentFrequency.map((count) =>
    count === 0 ? 0 : Math.log(1 + entries.length / count),
  );
  return matches
    .map(({ index, hits }) => ({
      index,
      score: hits.reduce((sum, term) => sum + weight[term]!, 0),
    }))
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .slice(0, limit)
    .map(({ index, score }) => ({
      ...entries[index]!.record,
      score: Math.round(score * 1000) / 1000,
    }));
}
