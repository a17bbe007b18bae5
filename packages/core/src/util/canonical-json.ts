import { createHash } from 'node:crypto';

function canonicalize(value: unknown, seen: Set<object>): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return value.toString();
    return value;
  }
  if (seen.has(value)) throw new TypeError('Cannot canonicalise a cyclic value.');
  seen.add(value);
  try {
    if (Array.isArray(value))
      return value.map((item) => (item === undefined ? null : canonicalize(item, seen)));
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return canonicalize((value as { toJSON(): unknown }).toJSON(), seen);
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined && typeof item !== 'function' && typeof item !== 'symbol') {
        out[key] = canonicalize(item, seen);
      }
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * Canonical JSON: object keys sorted recursively (by UTF-16 code unit), compact separators,
 * `undefined` members dropped. Two argument objects that differ only in key order give the
 * same string.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value, new Set())) ?? 'null';
}

/** SHA-256 (lower-case hex) of the canonical JSON of `value`. */
export function canonicalDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
