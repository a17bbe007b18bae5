/** Whose memories: memories belong to a user within an account, never shared across either. */
export interface MemoryScope {
  readonly accountId: string;
  readonly userId: string;
}

/** One remembered fact. */
export interface MemoryRecord {
  readonly id: string;
  readonly content: string;
  /** ISO 8601. */
  readonly created_at: string;
  readonly session_id?: string;
  readonly agent_id?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A memory found by a search, with its relevance. */
export interface ScoredMemory extends MemoryRecord {
  readonly score: number;
}

/** What to save. */
export interface MemoryEntry {
  content: string;
  sessionId?: string;
  agentId?: string;
  metadata?: Record<string, unknown>;
}

/** Long-term memory storage. Every method is scoped: an implementation must never return another scope's records. */
export interface MemoryBackend {
  /** A short name for status reports (`file`, `memory`, …). */
  readonly kind: string;
  save(scope: MemoryScope, entry: MemoryEntry): Promise<MemoryRecord>;
  /** Memories matching `query` best first; an empty query gives the most recent. */
  search(scope: MemoryScope, query: string, limit: number): Promise<ScoredMemory[]>;
}

/** One knowledge-base passage. */
export interface KnowledgePassage {
  readonly text: string;
  readonly source?: string;
  readonly score?: number;
}

/** A knowledge base (documents the agent may consult). */
export interface KnowledgeBase {
  readonly kind: string;
  search(
    query: string,
    options: { limit: number; scope: MemoryScope },
  ): Promise<KnowledgePassage[]>;
}

/** Search terms: lower-cased words, and CJK text as single characters and bigrams. */
export function memoryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    const token = match[0];
    if (/[\u3400-\u9fff\uf900-\ufaff]/.test(token)) {
      const chars = [...token];
      for (const char of chars) terms.add(char);
      for (let index = 0; index + 1 < chars.length; index += 1)
        terms.add(chars[index]! + chars[index + 1]!);
    } else {
      terms.add(token);
    }
  }
  return [...terms];
}

/** Ranks records against a query: shared terms weighted by rarity, ties to the newest. */
export function rankMemories(
  records: readonly MemoryRecord[],
  query: string,
  limit: number,
): ScoredMemory[] {
  const queryTerms = memoryTerms(query);
  if (queryTerms.length === 0) {
    return [...records]
      .reverse()
      .slice(0, limit)
      .map((record) => ({ ...record, score: 0 }));
  }
  const termSets = records.map((record) => new Set(memoryTerms(record.content)));
  const documentFrequency = new Map<string, number>();
  for (const term of queryTerms)
    documentFrequency.set(term, termSets.filter((set) => set.has(term)).length);
  const scored = records.map((record, index) => {
    let score = 0;
    for (const term of queryTerms) {
      if (termSets[index]!.has(term))
        score += Math.log(1 + records.length / (documentFrequency.get(term) ?? 1));
    }
    return { record, score, index };
  });
  return scored
    .filter((item) => item.score > 0)
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .slice(0, limit)
    .map((item) => ({ ...item.record, score: Math.round(item.score * 1000) / 1000 }));
}
