import { randomUUID } from 'node:crypto';
import type { MemoryEntry, MemoryRecord } from '@ksadk/core/memory';

/** A JSON copy of `value` without any `__proto__` key at any depth. */
function cleanJson(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value), (key, inner: unknown) =>
    key === '__proto__' ? undefined : inner,
  ) as Record<string, unknown>;
}

/**
 * The record a save stores: a fresh `mem_` id, the time, the entry's fields; metadata as a JSON
 * copy without `__proto__` keys (what is stored is exactly what is returned).
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

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A stored record read back: only its known fields, `__proto__` keys dropped; `undefined` for
 * anything that is not a memory record (skipped by the caller).
 */
export function parseMemoryRecord(text: string): MemoryRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text, (key, inner: unknown) => (key === '__proto__' ? undefined : inner));
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
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
