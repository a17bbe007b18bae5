import type { MemoryRecord } from './memory-backend.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one line of a memory file. Anything that is not a memory record gives `undefined`, so
 * the caller skips it: a torn or otherwise corrupt line, JSON that is not an object (`null`,
 * `42`, `[]`), an object without string `id`, `content` and `created_at`, or one with a
 * `__proto__` key at any depth. The record returned is a fresh object of the known fields only.
 *
 * @example
 * ```ts
 * parseMemoryLine('{"id":"mem_1","content":"Likes tea","created_at":"2025-01-01T00:00:00.000Z"}');
 * // { id: 'mem_1', content: 'Likes tea', created_at: '2025-01-01T00:00:00.000Z' }
 * parseMemoryLine('null'); // undefined
 * ```
 */
export function parseMemoryLine(line: string): MemoryRecord | undefined {
  let poisoned = false;
  let value: unknown;
  try {
    value = JSON.parse(line, (key, inner: unknown) => {
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
