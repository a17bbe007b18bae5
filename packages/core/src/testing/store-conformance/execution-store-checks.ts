import type { ExecutionQuotas } from '../../executions/execution-quotas.js';
import type { ExecutionStore } from '../../executions/execution-store.js';
import { runChecks } from './conformance-run.js';
import type { ExecutionStoreFactory } from './execution-check-kit.js';
import { executionListingChecks } from './execution-listing-checks.js';
import { executionRecordChecks } from './execution-record-checks.js';
import { storeCheck } from './store-check.js';

export type { ExecutionStoreFactory } from './execution-check-kit.js';

/** Options of {@link checkExecutionStore}. */
export interface ExecutionStoreCheckOptions {
  /** Concurrent begins of one call, and ends of one record (only one may win). @default 20 */
  concurrency?: number;
  /** Bound on each check, in milliseconds: a store that hangs fails instead. @default 30000 */
  checkTimeoutMs?: number;
}

/**
 * The behaviour every {@link ExecutionStore} must have, checked against a real store: records
 * round-trip every field (odd ids too); `begin` creates once per call (account, session, call id)
 * — a replay, another tool or other arguments get the first record back, a failed call of the same
 * tool and arguments is replaced by its retry, and one of many concurrent begins wins; `complete`
 * ends a started record once; expired records are neither found nor kept from a new call;
 * listings page newest first, filter by user, session, tool, time and outcome (`unknown` for a
 * started record past its deadline) and never show another account's; a full session or account
 * drops its oldest ended records, never a running one, and refuses with `execution_quota_exceeded`
 * without touching another account. Framework-neutral: assert the list is empty.
 *
 * Each check makes its own store through `makeStore(quotas)`; give every store a fresh
 * namespace (key prefix, schema, …) so the checks do not see each other's records.
 *
 * @returns one string per failure (`"<check>: <what went wrong>"`); empty when the store conforms.
 *
 * @example
 * ```ts
 * const failures = await checkExecutionStore((quotas) => createInMemoryExecutionStore({ quotas }));
 * if (failures.length > 0) throw new Error(failures.join('\n'));
 * ```
 */
export function checkExecutionStore(
  makeStore: ExecutionStoreFactory,
  options: ExecutionStoreCheckOptions = {},
): Promise<string[]> {
  const check = storeCheck<ExecutionStore, Partial<ExecutionQuotas>>(makeStore);
  return runChecks(
    [...executionRecordChecks(check, options.concurrency ?? 20), ...executionListingChecks(check)],
    options.checkTimeoutMs ?? 30_000,
  );
}
