import type { MemoryBackend } from '../../memory/memory-backend.js';
import { runChecks } from './conformance-run.js';
import type { MemoryBackendFactory, MemoryBackendLimits } from './memory-backend-factory.js';
import { isolationChecks, searchChecks } from './memory-search-checks.js';
import { storeCheck } from './store-check.js';

export type { MemoryBackendFactory, MemoryBackendLimits } from './memory-backend-factory.js';

/** Options of {@link checkMemoryBackend}. */
export interface MemoryBackendCheckOptions {
  /** Bound on each check, in milliseconds: a backend that hangs fails instead. @default 30000 */
  checkTimeoutMs?: number;
  /** Bound on one search with a 1 MB query, in milliseconds. @default 5000 */
  hugeQueryMs?: number;
}

/**
 * The behaviour every {@link MemoryBackend} must have, checked against a real backend: saves
 * return what they stored, an empty query gives the newest first, a query ranks the match first,
 * limits hold, look-alike scopes (separators, case, JSON, NUL, `__proto__`) never see each
 * other's memories, unicode and SQL-looking text round-trip, hostile metadata pollutes nothing, a
 * 1 MB query is read only as far as its first 2,000 characters and 64 terms, an aborted signal
 * stops a search, concurrent saves all land. Framework-neutral: call it from any test runner and
 * assert the list is empty.
 *
 * @returns one string per failure (`"<check>: <what went wrong>"`); empty when the backend conforms.
 *
 * @example
 * ```ts
 * const failures = await checkMemoryBackend((limits) => createInMemoryMemoryBackend(limits));
 * if (failures.length > 0) throw new Error(failures.join('\n'));
 * ```
 */
export function checkMemoryBackend(
  makeBackend: MemoryBackendFactory,
  options: MemoryBackendCheckOptions = {},
): Promise<string[]> {
  const check = storeCheck<MemoryBackend, MemoryBackendLimits>(makeBackend);
  const checks = [...searchChecks(check, options.hugeQueryMs ?? 5_000), ...isolationChecks(check)];
  return runChecks(checks, options.checkTimeoutMs ?? 30_000);
}
