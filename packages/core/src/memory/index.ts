// @ksadk/core/memory — long-term memory and knowledge-base backends and their tools.

export type {
  KnowledgeBase,
  KnowledgePassage,
  MemoryBackend,
  MemoryEntry,
  MemoryRecord,
  MemoryScope,
  MemorySearchOptions,
  ScoredMemory,
} from './memory-backend.js';
export {
  type IndexedMemory,
  indexMemory,
  MEMORY_QUERY_MAX_CHARS,
  memoryQueryTerms,
  memoryTerms,
  rankMemories,
} from './memory-ranking.js';
export { newMemoryRecord, parseMemoryRecord } from './memory-record.js';
export {
  createFileMemoryBackend,
  createInMemoryMemoryBackend,
  type MemoryStoreLimits,
} from './memory-stores.js';
export {
  createMemoryToolset,
  type MemoryFromEnv,
  type MemoryToolsetOptions,
  memoryToolsetFromEnv,
} from './tools/index.js';
