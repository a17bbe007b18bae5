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

/**
 * Scores a descriptor: +4 per term found in the name, else +1 per term found in the group,
 * description or argument names; workspace tools get +0.5 only when something already matched.
 */
export function scoreDescriptor(
  descriptor: ToolDescriptor,
  terms: readonly string[],
): ScoredDescriptor {
  const name = descriptor.name.toLowerCase();
  const haystack = [name, descriptor.group, descriptor.description, ...Object.keys(descriptor.args)]
    .join(' ')
    .toLowerCase();
  let score = 0;
  const matched: string[] = [];
  for (const term of terms) {
    if (name.includes(term)) {
      score += 4;
      matched.push(term);
    } else if (haystack.includes(term)) {
      score += 1;
      matched.push(term);
    }
  }
  if (score > 0 && descriptor.group === 'workspace') score += 0.5;
  return { descriptor, score, matched };
}
