import { createHash } from 'node:crypto';

/**
 * Turns any string into one safe path segment: characters outside `[A-Za-z0-9_.-]` become
 * `_`, leading dots and underscores are dropped, and when anything changed a short hash of
 * the original is appended so distinct inputs never share a segment. Empty → `fallback`.
 */
export function safePathSegment(value: string, fallback = '_'): string {
  if (value === '') return fallback;
  let out = value
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 64);
  if (out !== value) {
    const hash = createHash('sha256').update(value).digest('hex').slice(0, 8);
    out = out ? `${out}-${hash}` : hash;
  }
  return out;
}
