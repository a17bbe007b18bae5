import { type IndexedMemory, indexMemory, parseMemoryRecord } from '@ksadk/core/memory';

/** Characters of memory text kept indexed across searches, per backend. */
const MAX_CACHED_CHARS = 32 * 1024 * 1024;

/** Scopes' records as last read, each with its terms, so a search tokenises only new records. */
export interface IndexedCache {
  /**
   * The records of a scope's stored texts (oldest first), indexed; texts seen in the scope's
   * previous search are not parsed or tokenised again. Texts that are not records are skipped.
   */
  index(scopeKey: string, texts: readonly string[], signal?: AbortSignal): Promise<IndexedMemory[]>;
}

/** Records tokenised between two yields to the event loop. */
const INDEX_BATCH = 250;

/**
 * A per-backend cache of indexed records, keyed by scope and by the stored text itself (a record
 * that changed is a new text). Bounded: the least recently searched scopes go once the cached
 * text passes 32 MiB.
 */
export function createIndexedCache(): IndexedCache {
  const scopes = new Map<string, { entries: Map<string, IndexedMemory>; chars: number }>();
  let total = 0;
  return {
    async index(scopeKey, texts, signal) {
      const previous = scopes.get(scopeKey)?.entries;
      const next = new Map<string, IndexedMemory>();
      const entries: IndexedMemory[] = [];
      let chars = 0;
      let fresh = 0;
      for (const text of texts) {
        let entry = previous?.get(text);
        if (!entry) {
          // Tokenising is CPU work: let other requests (and an abort) in now and then.
          fresh += 1;
          if (fresh % INDEX_BATCH === 0) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            signal?.throwIfAborted();
          }
          const record = parseMemoryRecord(text);
          if (!record) continue;
          entry = indexMemory(record);
        }
        next.set(text, entry);
        entries.push(entry);
        chars += text.length;
      }
      total -= scopes.get(scopeKey)?.chars ?? 0;
      scopes.delete(scopeKey);
      if (chars <= MAX_CACHED_CHARS) {
        scopes.set(scopeKey, { entries: next, chars });
        total += chars;
      }
      for (const [key, scope] of scopes) {
        if (total <= MAX_CACHED_CHARS) break;
        scopes.delete(key);
        total -= scope.chars;
      }
      return entries;
    },
  };
}
