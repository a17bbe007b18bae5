import { KsadkError } from '../errors/ksadk-error.js';
import type { SealedValue } from './credential-crypto.js';
import type { CredentialKind } from './credential-spec.js';

/** One account's (and user's) credential, its secret part sealed: what a store keeps. */
export interface StoredCredential {
  readonly accountId: string;
  /** `''` when the calls carry no user. */
  readonly userId: string;
  readonly credentialId: string;
  readonly kind: CredentialKind;
  /** The scopes it was granted for. */
  readonly scopes: readonly string[];
  /** The secret part (token, refresh token, API key), sealed for this account, user and id. */
  readonly sealed: SealedValue;
  /** When the access token expires (epoch ms), if it does. */
  readonly expiresAt?: number;
  /**
   * The OAuth client the token was issued to (no secret; part of what the seal authenticates):
   * refreshed with that client only, and handed only to a tool whose client has its issuer and
   * resource.
   */
  readonly oauth?: BoundOAuthClient;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** An OAuth client as a request or a credential is bound to it: no secret. */
export interface BoundOAuthClient {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly resource?: string;
}

/** A sign-in (or a key) the host was asked for: pending until provided, used once. */
export interface CredentialRequestRecord {
  /** `creq_` + 32 hex characters. */
  readonly id: string;
  readonly accountId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly credentialId: string;
  readonly kind: CredentialKind;
  readonly scopes: readonly string[];
  readonly toolName: string;
  /** The framework's tool call id, when given. */
  readonly callId?: string;
  /** The OAuth client the sign-in was started with (no secret): its code goes to this server only. */
  readonly oauth?: BoundOAuthClient;
  /** The OAuth `state` the callback must carry back. */
  readonly state?: string;
  /** The PKCE `code_verifier`, sealed. */
  readonly verifier?: SealedValue;
  /** Where the user signs in (carries `state` and the PKCE challenge, no secret). */
  readonly authorizationUrl?: string;
  readonly status: 'pending' | 'used';
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** Where a credential is found: an account, a user, an id. */
export interface CredentialKey {
  readonly accountId: string;
  readonly userId: string;
  readonly credentialId: string;
}

/**
 * Persistence for credentials and the requests that obtain them. It only ever holds sealed
 * secrets: a stolen copy of its data is unreadable without the host's key. `useRequest` must be a
 * compare-and-set (one provide wins), and quotas must never touch another account's records.
 */
export interface CredentialStore {
  /** True when several processes share it. */
  readonly shared?: boolean;
  close?(): Promise<void>;
  /**
   * Saves (or replaces) a credential.
   * @throws {KsadkError} `credential_quota_exceeded` when the account holds too many.
   */
  putCredential(credential: StoredCredential): Promise<void>;
  getCredential(key: CredentialKey): Promise<StoredCredential | undefined>;
  /** Forgets a credential; `true` when there was one. */
  deleteCredential(key: CredentialKey): Promise<boolean>;
  /** An account's credentials (a user's, when given), without their secrets opened. */
  listCredentials(query: {
    accountId: string;
    userId?: string;
  }): Promise<readonly StoredCredential[]>;
  /**
   * Saves a new request. Past the account's quota, its expired and used requests go first.
   * @throws {KsadkError} `credential_quota_exceeded`
   */
  createRequest(request: CredentialRequestRecord): Promise<void>;
  getRequest(id: string): Promise<CredentialRequestRecord | undefined>;
  /**
   * The newest pending, unexpired request of one tool call for one credential: a replayed call
   * (a resumed checkpoint) finds the sign-in it already asked for instead of starting another.
   */
  findPendingRequest(query: {
    readonly accountId: string;
    readonly userId: string;
    readonly credentialId: string;
    readonly callId: string;
    readonly now: number;
  }): Promise<CredentialRequestRecord | undefined>;
  /** Marks a pending, unexpired request used, once: the request, or `undefined` when it is not. */
  useRequest(id: string, now: number): Promise<CredentialRequestRecord | undefined>;
}

/** Limits of a credential store, per account. */
export interface CredentialQuotas {
  /** Credentials per account. @default 200 */
  readonly credentials: number;
  /** Open requests per account. @default 100 */
  readonly requests: number;
}

const keyOf = (key: CredentialKey): string =>
  JSON.stringify([key.accountId, key.userId, key.credentialId]);

/** The refusal of a full account (`what`: `'credentials'` or `'credential requests'`); for stores. */
export const credentialQuotaExceeded = (what: string): KsadkError =>
  new KsadkError(
    'credential_quota_exceeded',
    `This account holds too many ${what}; revoke some or let the open requests expire first.`,
  );

const quotaError = credentialQuotaExceeded;

/**
 * A store's quotas from its options: whole numbers of at least 1, at the defaults when unset.
 *
 * @throws {KsadkError} `invalid_config` for a quota that is not a number.
 */
export function resolveCredentialQuotas(
  given: Partial<CredentialQuotas> | undefined,
  where: string,
): CredentialQuotas {
  const one = (value: number | undefined, fallback: number, name: string): number => {
    const quota = value ?? fallback;
    if (typeof quota !== 'number' || Number.isNaN(quota))
      throw new KsadkError('invalid_config', `${where}: quotas.${name} must be a number.`);
    return Math.max(1, Math.floor(quota));
  };
  return {
    credentials: one(given?.credentials, 200, 'credentials'),
    requests: one(given?.requests, 100, 'requests'),
  };
}

/**
 * The in-memory {@link CredentialStore}: for one process, bounded per account. Secrets arrive
 * sealed, so even a heap dump shows none in the clear.
 */
export function createInMemoryCredentialStore(
  options: { quotas?: Partial<CredentialQuotas>; now?: () => number } = {},
): CredentialStore {
  const quotas: CredentialQuotas = {
    credentials: Math.max(1, options.quotas?.credentials ?? 200),
    requests: Math.max(1, options.quotas?.requests ?? 100),
  };
  const now = options.now ?? Date.now;
  const credentials = new Map<string, StoredCredential>();
  const perAccount = new Map<string, Set<string>>();
  const requests = new Map<string, CredentialRequestRecord>();
  const requestsPerAccount = new Map<string, Set<string>>();

  const index = (map: Map<string, Set<string>>, account: string): Set<string> => {
    let found = map.get(account);
    if (!found) {
      found = new Set();
      map.set(account, found);
    }
    return found;
  };

  return {
    async putCredential(credential) {
      const key = keyOf(credential);
      const mine = index(perAccount, credential.accountId);
      if (!mine.has(key) && mine.size >= quotas.credentials) throw quotaError('credentials');
      mine.add(key);
      credentials.set(key, Object.freeze(structuredClone(credential)));
    },
    async getCredential(key) {
      return credentials.get(keyOf(key));
    },
    async deleteCredential(key) {
      const id = keyOf(key);
      perAccount.get(key.accountId)?.delete(id);
      return credentials.delete(id);
    },
    async listCredentials({ accountId, userId }) {
      return [...(perAccount.get(accountId) ?? [])]
        .map((key) => credentials.get(key))
        .filter(
          (item): item is StoredCredential =>
            item !== undefined && (userId === undefined || item.userId === userId),
        );
    },
    async createRequest(request) {
      const mine = index(requestsPerAccount, request.accountId);
      if (mine.size >= quotas.requests) {
        const at = now();
        for (const id of [...mine]) {
          const old = requests.get(id);
          if (!old || old.status === 'used' || old.expiresAt <= at) {
            mine.delete(id);
            requests.delete(id);
          }
        }
      }
      if (mine.size >= quotas.requests) throw quotaError('credential requests');
      mine.add(request.id);
      requests.set(request.id, Object.freeze(structuredClone(request)));
    },
    async getRequest(id) {
      return requests.get(id);
    },
    async findPendingRequest({ accountId, userId, credentialId, callId, now: at }) {
      let found: CredentialRequestRecord | undefined;
      for (const id of requestsPerAccount.get(accountId) ?? []) {
        const request = requests.get(id);
        if (
          request?.status === 'pending' &&
          request.expiresAt > at &&
          request.userId === userId &&
          request.credentialId === credentialId &&
          request.callId === callId
        )
          found = request;
      }
      return found;
    },
    async useRequest(id, at) {
      const request = requests.get(id);
      if (request?.status !== 'pending' || request.expiresAt <= at) return undefined;
      requests.set(id, Object.freeze({ ...request, status: 'used' as const }));
      return request;
    },
  };
}
