import { randomUUID } from 'node:crypto';
import { isPlainObject } from '../util/plain-object.js';
import type { MemoryEntry, MemoryRecord } from './memory-backend.js';

/** A JSON copy of `value` without any `__proto__` key at any depth. */
function cleanJson(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value), (key, inner: unknown) =>
    key === '__proto__' ? undefined : inner,
  ) as Record<string, unknown>;
}

/**
 * The record a {@link MemoryBackend} saves for `entry`, built as every KsADK backend builds it (for
 * authors of other backends): a fresh `mem_` + 32 hex id, the current time as ISO 8601, the
 * entry's content, session and agent; its metadata as a JSON copy without `__proto__` keys at any
 * depth (left out when empty), so what a backend stores is exactly what `save` returns.
 *
 * @example
 * ```ts
 * const backend: MemoryBackend = {
 *   kind: 'kv',
 *   async save(scope, entry) {
 *     const record = newMemoryRecord(entry);
 *     await kv.append(JSON.stringify([scope.accountId, scope.userId]), JSON.stringify(record));
 *     return record;
 *   },
 *   search: async () => [],
 * };
 * ```
 */
export function newMemoryRecord(entry: MemoryEntry): MemoryRecord {
  const metadata = entry.metadata ? cleanJson(entry.metadata) : undefined;
  return {
    id: `mem_${randomUUID().replaceAll('-', '')}`,
    content: entry.content,
    created_at: new Date().toISOString(),
    ...(entry.sessionId ? { session_id: entry.sessionId } : {}),
    ...(entry.agentId ? { agent_id: entry.agentId } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/**
 * A stored record read back (the JSON text of a {@link newMemoryRecord} record, a line of a memory
 * file, a Redis value, a PostgreSQL row): a fresh object of the known fields only. Anything that
 * is not a memory record gives `undefined`, for the caller to skip: text that is not JSON (a torn
 * line), JSON that is not an object (`null`, `42`, `[]`), an object without string `id`, `content`
 * and `created_at`, or one with a `__proto__` key at any depth — {@link newMemoryRecord} never
 * writes one, so such a record was planted.
 *
 * @example
 * ```ts
 * parseMemoryRecord('{"id":"mem_1","content":"Likes tea","created_at":"2025-01-01T00:00:00.000Z"}');
 * // { id: 'mem_1', content: 'Likes tea', created_at: '2025-01-01T00:00:00.000Z' }
 * parseMemoryRecord('null'); // undefined
 * ```
 */
export function parseMemoryRecord(text: string): MemoryRecord | undefined {
  let poisoned = false;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, inner: unknown) => {
      if (key === '__proto__') poisoned = true;
      return inner;
    });
  } catch {
    return undefined;
  }
  if (poisoned || !isPlainObject(value)) return undefined;
  const { id, content, created_at, session_id, agent_id, metadata } = value;
  if (typeof id !== 'string' || typeof content !== 'string' || typeof created_at !== 'string')
    return undefined;
  return {
    id,
    content,
    created_at,
    ...(typeof session_id === 'string' ? { session_id } : {}),
    ...(typeof agent_id === 'string' ? { agent_id } : {}),
    ...(isPlainObject(metadata) ? { metadata } : {}),
  };
}
