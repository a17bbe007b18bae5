import type { CredentialQuotas, CredentialStore } from '../../credentials/credential-store.js';
import { runChecks } from './conformance-run.js';
import type { CredentialStoreFactory } from './credential-check-kit.js';
import { credentialRecordChecks } from './credential-record-checks.js';
import { credentialRequestChecks } from './credential-request-checks.js';
import { storeCheck } from './store-check.js';

export type { CredentialStoreFactory } from './credential-check-kit.js';

/** Options of {@link checkCredentialStore}. */
export interface CredentialStoreCheckOptions {
  /** Concurrent uses of one request (only one may win). @default 20 */
  concurrency?: number;
  /** Bound on each check, in milliseconds: a store that hangs fails instead. @default 30000 */
  checkTimeoutMs?: number;
}

/**
 * The behaviour every {@link CredentialStore} must have, checked against a real store:
 * credentials round-trip every field (odd ids too), a put replaces, a delete forgets once, and
 * listings filter by account and user without showing another account's; a full account refuses
 * new credentials with `credential_quota_exceeded` (replacements and other accounts go on).
 * Requests round-trip, `findPendingRequest` finds the newest pending, unexpired request of
 * exactly one (account, user, credential, call), `useRequest` is a compare-and-set (one of many
 * concurrent uses wins; used and expired requests never), and a full account drops its own used
 * and expired requests before it refuses. Framework-neutral: assert the list is empty.
 *
 * Each check makes its own store through `makeStore(quotas)`; give every store a fresh
 * namespace (key prefix, schema, …) so the checks do not see each other's records.
 *
 * @returns one string per failure (`"<check>: <what went wrong>"`); empty when the store conforms.
 *
 * @example
 * ```ts
 * const failures = await checkCredentialStore((quotas) => createInMemoryCredentialStore({ quotas }));
 * if (failures.length > 0) throw new Error(failures.join('\n'));
 * ```
 */
export function checkCredentialStore(
  makeStore: CredentialStoreFactory,
  options: CredentialStoreCheckOptions = {},
): Promise<string[]> {
  const check = storeCheck<CredentialStore, Partial<CredentialQuotas>>(makeStore);
  return runChecks(
    [
      ...credentialRecordChecks(check),
      ...credentialRequestChecks(check, options.concurrency ?? 20),
    ],
    options.checkTimeoutMs ?? 30_000,
  );
}
