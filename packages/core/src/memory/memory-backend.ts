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

/** Options of {@link MemoryBackend.search}. */
export interface MemorySearchOptions {
  /**
   * Stops the search: a backend that honours it rejects with the signal's reason soon after it
   * aborts (the tool gateway aborts a call on timeout or when the caller cancels).
   */
  signal?: AbortSignal;
}

/** Long-term memory storage. Every method is scoped: an implementation must never return another scope's records. */
export interface MemoryBackend {
  /** A short name for status reports (`file`, `memory`, …). */
  readonly kind: string;
  save(scope: MemoryScope, entry: MemoryEntry): Promise<MemoryRecord>;
  /**
   * Memories matching `query` best first; an empty query gives the most recent. The embedded
   * backends read at most the first 2,000 characters and 64 distinct terms of `query`.
   */
  search(
    scope: MemoryScope,
    query: string,
    limit: number,
    options?: MemorySearchOptions,
  ): Promise<ScoredMemory[]>;
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
