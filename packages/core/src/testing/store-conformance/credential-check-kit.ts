import { randomBytes } from 'node:crypto';
import type {
  CredentialQuotas,
  CredentialRequestRecord,
  CredentialStore,
  StoredCredential,
} from '../../credentials/credential-store.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { StoreCheck } from './store-check.js';

/** Makes a fresh, empty credential store with the given quotas (unset ones at its defaults). */
export type CredentialStoreFactory = (
  quotas: Partial<CredentialQuotas>,
) => CredentialStore | Promise<CredentialStore>;

/** Makes one credential-store check (a fresh store with the check's quotas). */
export type CredentialCheck = StoreCheck<CredentialStore, Partial<CredentialQuotas>>;

/** Whether `error` is KsADK's `credential_quota_exceeded`. */
export const isCredentialQuotaError = (error: unknown): boolean =>
  KsadkError.isInstance(error) && error.code === 'credential_quota_exceeded';

/** Runs `write` and reports whether it was refused with `credential_quota_exceeded`. */
export async function quotaRefused(write: () => Promise<void>): Promise<boolean> {
  try {
    await write();
    return false;
  } catch (error) {
    if (isCredentialQuotaError(error)) return true;
    throw error;
  }
}

/** A sealed-looking value (base64url noise and a key id): stores keep it as given. */
const sealedValue = () => ({
  keyId: randomBytes(8).toString('hex'),
  data: randomBytes(48).toString('base64url'),
});

/** A fresh API-key credential of `acct_conformance` / `user_conformance`, with overrides. */
export function storedCredential(overrides: Partial<StoredCredential> = {}): StoredCredential {
  const at = Date.now();
  return {
    accountId: 'acct_conformance',
    userId: 'user_conformance',
    credentialId: `cred_${randomBytes(4).toString('hex')}`,
    kind: 'api_key',
    scopes: [],
    sealed: sealedValue(),
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

/** A fresh pending request (a new `creq_` id, one minute to live), with overrides. */
export function credentialRequest(
  overrides: Partial<CredentialRequestRecord> = {},
): CredentialRequestRecord {
  const at = Date.now();
  return {
    id: `creq_${randomBytes(16).toString('hex')}`,
    accountId: 'acct_conformance',
    userId: 'user_conformance',
    sessionId: 'sess_conformance',
    credentialId: 'cred_conformance',
    kind: 'api_key',
    scopes: [],
    toolName: 'weather',
    callId: 'call_1',
    status: 'pending',
    createdAt: at,
    expiresAt: at + 60_000,
    ...overrides,
  };
}

/** Sorts credentials by user and id, so listings of any order compare. */
export const byKey = (items: readonly StoredCredential[]): StoredCredential[] =>
  [...items].sort((a, b) =>
    a.userId === b.userId
      ? a.credentialId < b.credentialId
        ? -1
        : 1
      : a.userId < b.userId
        ? -1
        : 1,
  );
