import type { ToolDescriptor } from './tool-descriptor.js';

const SYNONYMS: Record<string, readonly string[]> = {
  edit: ['replace', 'modify', 'patch', 'write', 'file'],
  file: ['workspace', 'read', 'list', 'search', 'edit'],
  grep: ['search', 'rg', 'find'],
  run: ['command', 'shell', 'code', 'execute'],
  web: ['fetch', 'search', 'url', 'http'],
  读: ['read', 'file', 'workspace'],
  改: ['edit', 'replace', 'file'],
  搜: ['search', 'grep', 'find'],
};

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;

/**
 * Search terms of a query: lower-cased ASCII words, CJK runs as bigrams (a single CJK character
 * stays itself), then each term's synonyms — every term once, in first-seen order.
 */
export function searchTerms(query: string): string[] {
  const lower = query.toLowerCase();
  const tokens: string[] = [];
  for (const match of lower.matchAll(/[a-z0-9_]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g)) {
    const token = match[0];
    if (!CJK.test(token)) {
      tokens.push(token);
      continue;
    }
    const chars = [...token];
    if (chars.length === 1) tokens.push(token);
    for (let index = 0; index + 1 < chars.length; index += 1)
      tokens.push(chars[index]! + chars[index + 1]!);
    for (const char of chars) if (SYNONYMS[char]) tokens.push(char);
  }
  const terms = new Set<string>();
  for (const token of tokens) {
    terms.add(token);
    for (const synonym of SYNONYMS[token] ?? []) terms.add(synonym);
  }
  return [...terms];
}

/** One scored search result. */
export interface ScoredDescriptor {
  descriptor: ToolDescriptor;
  score: number;
  matched: string[];
}

/** A descriptor with the lower-cased text search looks in, computed once per registration. */
export interface SearchEntry {
  readonly descriptor: ToolDescriptor;
  /** The lower-cased name. */
  readonly name: string;
  /** Lower-cased name, group, description and argument names. */
  readonly haystack: string;
}

/** Indexes a descriptor for search. */
export function searchEntryOf(descriptor: ToolDescriptor): SearchEntry {
  const name = descriptor.name.toLowerCase();
  const haystack = [name, descriptor.group, descriptor.description, ...Object.keys(descriptor.args)]
    .join(' ')
    .toLowerCase();
  return { descriptor, name, haystack };
}

/**
 * A search index over entries: all names and all haystacks joined into two strings, so a term is
 * found in every entry by a few native `indexOf` scans instead of one `includes` per entry — the
 * same substring semantics, at memchr speed.
 */
export interface SearchIndex {
  readonly entries: readonly SearchEntry[];
  /**
   * Scores every entry: +4 per term found in the name, else +1 per term found in the group,
   * description or argument names; workspace tools get +0.5 only when something matched. Returns
   * the best `limit` (score, then name), skipping entries `skip` refuses.
   */
  top(
    terms: readonly string[],
    limit: number,
    skip?: (entry: SearchEntry) => boolean,
  ): ScoredDescriptor[];
}

const SEPARATOR = '\u0000';

function joined(texts: readonly string[]): { text: string; starts: Int32Array } {
  const starts = new Int32Array(texts.length + 1);
  let offset = 0;
  texts.forEach((text, index) => {
    starts[index] = offset;
    offset += text.length + 1;
  });
  starts[texts.length] = offset;
  return { text: texts.join(SEPARATOR) + SEPARATOR, starts };
}

/** The entry whose span holds `position` (binary search over span starts). */
function entryAt(starts: Int32Array, position: number): number {
  let low = 0;
  let high = starts.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= position) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Calls `found(entry)` once for every entry whose text contains `term`. */
function eachContaining(
  index: { text: string; starts: Int32Array },
  term: string,
  found: (entry: number) => void,
): void {
  let position = index.text.indexOf(term);
  while (position >= 0) {
    const entry = entryAt(index.starts, position);
    found(entry);
    position = index.text.indexOf(term, index.starts[entry + 1]!);
  }
}

const better = (a: ScoredDescriptor, b: ScoredDescriptor): boolean =>
  a.score > b.score || (a.score === b.score && a.descriptor.name < b.descriptor.name);

/** Builds a {@link SearchIndex}. */
export function createSearchIndex(entries: readonly SearchEntry[]): SearchIndex {
  const haystacks = joined(entries.map((entry) => entry.haystack));
  return {
    entries,
    top(terms, limit, skip) {
      const scores = new Float64Array(entries.length);
      const matched: (string[] | undefined)[] = new Array(entries.length);
      const hit: number[] = [];
      for (const term of terms) {
        if (term === '' || term.includes(SEPARATOR)) continue;
        // The haystack starts with the name: a name hit is always a haystack hit.
        eachContaining(haystacks, term, (entry) => {
          scores[entry] = scores[entry]! + (entries[entry]!.name.includes(term) ? 4 : 1);
          const list = matched[entry];
          if (list) list.push(term);
          else {
            matched[entry] = [term];
            hit.push(entry);
          }
        });
      }
      const best: ScoredDescriptor[] = [];
      for (const entry of hit) {
        const candidate = entries[entry]!;
        if (skip?.(candidate)) continue;
        const score = scores[entry]! + (candidate.descriptor.group === 'workspace' ? 0.5 : 0);
        const scored = { descriptor: candidate.descriptor, score, matched: matched[entry]! };
        if (best.length === limit && !better(scored, best[best.length - 1]!)) continue;
        let at = best.length;
        while (at > 0 && better(scored, best[at - 1]!)) at -= 1;
        best.splice(at, 0, scored);
        if (best.length > limit) best.pop();
      }
      return best;
    },
  };
}
