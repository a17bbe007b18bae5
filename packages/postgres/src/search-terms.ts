import { memoryQueryTerms, memoryTerms } from '@ksadk/core/memory';

/** Characters of a text that are indexed for full-text search. */
const INDEXED_CHARS = 200_000;
/** Size of the indexed term list (PostgreSQL refuses a tsvector of 1 MB or more). */
const SEARCH_TEXT_CHARS = 256 * 1024;
/** Longer words are not indexed (PostgreSQL skips words over 2 KB anyway). */
const TERM_CHARS = 200;

/**
 * The text a row's tsvector is built from: core's search terms of the text (lower-cased words, CJK
 * as characters and bigrams), space-separated, so documents and queries are cut into the same
 * terms as in core's embedded stores. Only the first 200,000 characters of a text are indexed.
 */
export function searchTextOf(text: string): string {
  const terms: string[] = [];
  let size = 0;
  for (const term of memoryTerms(text.slice(0, INDEXED_CHARS))) {
    if (term.length > TERM_CHARS) continue;
    if (size + term.length + 1 > SEARCH_TEXT_CHARS) break;
    terms.push(term);
    size += term.length + 1;
  }
  return terms.join(' ');
}

/** How to search for a query. */
export type QueryPlan =
  /** No terms at all: the newest records. */
  | { readonly kind: 'recent' }
  /** Terms that cannot match anything. */
  | { readonly kind: 'none' }
  /** A `to_tsquery('simple', …)` text: the terms, each quoted, joined by OR. */
  | { readonly kind: 'match'; readonly tsquery: string };

/**
 * The tsquery of a query: the terms of its first 2,000 characters, at most 64 (as core's
 * embedded stores read it). Terms hold letters, digits and `_` only, so quoting them is safe.
 */
export function queryPlanOf(query: string): QueryPlan {
  const terms = memoryQueryTerms(query);
  if (terms.length === 0) return { kind: 'recent' };
  const usable = terms.filter((term) => term.length <= TERM_CHARS);
  if (usable.length === 0) return { kind: 'none' };
  return { kind: 'match', tsquery: usable.map((term) => `'${term}'`).join(' | ') };
}
