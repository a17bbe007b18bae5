import path from 'node:path';
import { safePathSegment } from '../util/safe-segment.js';
import type { MemoryScope } from './memory-backend.js';

/**
 * The JSON-lines file that holds one scope's memories: `<dir>/<account>/<user>.jsonl`, each
 * segment from {@link safePathSegment}. Distinct scopes always get distinct paths, also on
 * case-insensitive file systems, and the path never leaves `dir`. The segments contain no `.`,
 * so the helper files next to it (`<file>.lock`, `<file>.<uuid>.tmp`) never belong to another
 * scope either.
 *
 * Internal: exposed for the file backend and its tests, not part of the package's API.
 *
 * @example
 * ```ts
 * memoryFileOf('/data/memory', { accountId: 'acme', userId: 'alice@example.com' });
 * // "/data/memory/acme/alice_0040example_002ecom.jsonl"
 * ```
 */
export function memoryFileOf(dir: string, scope: MemoryScope): string {
  return path.join(dir, safePathSegment(scope.accountId), `${safePathSegment(scope.userId)}.jsonl`);
}
