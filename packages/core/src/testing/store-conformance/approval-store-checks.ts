import type { ApprovalStore } from '../../gateway/approval/store.js';
import { auditChecks } from './approval-audit-checks.js';
import {
  inboxFilterChecks,
  inboxListingChecks,
  inboxRecordChecks,
} from './approval-inbox-checks.js';
import { accountQuotaChecks, storeQuotaChecks, tombstoneChecks } from './approval-quota-checks.js';
import { recordChecks, transitionChecks } from './approval-record-checks.js';
import { sessionQuotaChecks } from './approval-session-quota-checks.js';
import type { ApprovalStoreFactory, ApprovalStoreQuotas } from './approval-store-factory.js';
import { runChecks } from './conformance-run.js';
import { standingGrantChecks, standingGrantQuotaChecks } from './standing-grant-checks.js';
import { storeCheck } from './store-check.js';

export type { ApprovalStoreFactory, ApprovalStoreQuotas } from './approval-store-factory.js';

/** Options of {@link checkApprovalStore}. */
export interface ApprovalStoreCheckOptions {
  /** Concurrent consumes of one grant (only one may win). @default 50 */
  concurrency?: number;
  /** Bound on each check, in milliseconds: a store that hangs fails instead. @default 30000 */
  checkTimeoutMs?: number;
}

/**
 * The behaviour every {@link ApprovalStore} must have, checked against a real store: records
 * round-trip, `findOpen` finds the newest unexpired record of a binding key (a consumed one too:
 * it stays as a tombstone without arguments until it expires), `transition` is a compare-and-set
 * (one consume wins among many concurrent ones), records expire, and quotas per session, per account
 * and in total are kept the way the in-memory store keeps them (expired first, then the oldest
 * undecided requests of the same session or account, tombstones before undecided requests;
 * approved grants never; other accounts never). The inbox listing pages newest first without gaps
 * and filters by status (`expired`: pending past `decideBy ?? expiresAt`), session, tool and user,
 * never showing one account's requests to another; a decision's `decidedBy` and `edited` round-trip
 * and a consume drops `edited` with the arguments. Standing grants round-trip, are found by account
 * and tool, are revoked once (compare-and-set) and keep their quotas (inactive grants dropped
 * first, active ones and other accounts' never); the audit log lists newest first, per account,
 * `since` a time, and keeps its retention by count and age without one account's flood removing
 * another's records. Framework-neutral: call it from any test runner and assert the list is empty.
 *
 * Each check makes its own store through `makeStore(quotas)`; give every store a fresh
 * namespace (key prefix, schema, …) so the checks do not see each other's records.
 *
 * @returns one string per failure (`"<check>: <what went wrong>"`); empty when the store conforms.
 *
 * @example
 * ```ts
 * const failures = await checkApprovalStore((quotas) => createInMemoryApprovalStore(quotas));
 * if (failures.length > 0) throw new Error(failures.join('\n'));
 * ```
 */
export function checkApprovalStore(
  makeStore: ApprovalStoreFactory,
  options: ApprovalStoreCheckOptions = {},
): Promise<string[]> {
  const check = storeCheck<ApprovalStore, ApprovalStoreQuotas>(makeStore);
  const checks = [
    ...recordChecks(check),
    ...transitionChecks(check, options.concurrency ?? 50),
    ...sessionQuotaChecks(check),
    ...accountQuotaChecks(check),
    ...storeQuotaChecks(check),
    ...tombstoneChecks(check),
    ...inboxRecordChecks(check),
    ...inboxListingChecks(check),
    ...inboxFilterChecks(check),
    ...standingGrantChecks(check),
    ...standingGrantQuotaChecks(check),
    ...auditChecks(check),
  ];
  return runChecks(checks, options.checkTimeoutMs ?? 30_000);
}
