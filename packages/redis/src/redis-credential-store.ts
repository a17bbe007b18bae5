import {
  type CredentialQuotas,
  type CredentialRequestRecord,
  type CredentialStore,
  KsadkError,
  type StoredCredential,
} from '@ksadk/core';
import {
  checkOptions,
  credentialQuotaExceeded,
  type OptionKeys,
  resolveCredentialQuotas,
} from '@ksadk/core/adapter';
import {
  CREATE_REQUEST_SCRIPT,
  DELETE_CREDENTIAL_SCRIPT,
  FIND_PENDING_SCRIPT,
  PUT_CREDENTIAL_SCRIPT,
  USE_REQUEST_SCRIPT,
} from './credential-scripts.js';
import { keyPrefixOf } from './key-prefix.js';
import { openRedis, type RedisConnectionOptions } from './redis-connection.js';
import { defineCommands, keyHash } from './redis-store-context.js';
import { guarded } from './store-error.js';

/** Options of {@link createRedisCredentialStore}. */
export interface RedisCredentialStoreOptions extends RedisConnectionOptions {
  /** Prefix of every key (no `{` or `}`: the store adds its own hash tag). @default 'ksadk:' */
  keyPrefix?: string;
  /** Credentials and open requests per account. @default { credentials: 200, requests: 100 } */
  quotas?: Partial<CredentialQuotas>;
  /** The clock (epoch ms) used for expiry decisions. @default Date.now */
  now?: () => number;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 5000 */
  timeoutMs?: number;
}

/** A {@link CredentialStore} shared by every process that uses the same Redis and key prefix. */
export interface RedisCredentialStore extends CredentialStore {
  readonly shared: true;
  /** Closes the client the store opened from `url`; a client you passed stays open. */
  close(): Promise<void>;
}

const OPTIONS = {
  client: true,
  url: true,
  keyPrefix: true,
  quotas: true,
  now: true,
  timeoutMs: true,
} as const satisfies OptionKeys<RedisCredentialStoreOptions>;

/** The commands this store defines on its client (versioned: a new layout gets new names). */
interface CredentialCommands {
  ksadkCredentialPutV1(...args: string[]): Promise<string>;
  ksadkCredentialDeleteV1(...args: string[]): Promise<number>;
  ksadkCredentialRequestCreateV1(...args: string[]): Promise<string>;
  ksadkCredentialRequestFindV1(...args: string[]): Promise<string | null>;
  ksadkCredentialRequestUseV1(...args: string[]): Promise<string | null>;
}

/** Parses stored JSON; `undefined` for anything that is not an object. */
function parsed<T>(text: string | null | undefined): T | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as T)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A {@link CredentialStore} on Redis, for several server instances: every process that points at
 * the same Redis and key prefix sees the same credentials, and a sign-in request is used once
 * whichever process receives the answer.
 *
 * - Every key sits under one hash tag (`<prefix>{<prefix>credentials}:`), so the store works on
 *   Redis Cluster; account, user and credential ids reach keys only as SHA-256 hashes.
 * - `putCredential` (with the per-account quota), `createRequest` (dropping the account's used
 *   and expired requests when it is full, never another account's) and `useRequest` (a
 *   compare-and-set: of any number of concurrent uses exactly one wins) are Lua scripts.
 * - Request keys expire with their request (`PEXPIRE`), and so do their indexes.
 * - Credentials hold only sealed secrets, stored as given: the data is unreadable without the
 *   host's credential key.
 *
 * Driver failures and timeouts throw {@link KsadkError} `store_unavailable`, without the URL or
 * password in the message.
 *
 * @example
 * ```ts
 * const store = createRedisCredentialStore({ url: 'redis://127.0.0.1:6379' });
 * const gateway = createToolGateway({ credentials: { key: process.env.KSADK_CREDENTIAL_KEY, store } });
 * ```
 */
export function createRedisCredentialStore(
  options: RedisCredentialStoreOptions,
): RedisCredentialStore {
  const where = 'createRedisCredentialStore()';
  checkOptions(options, OPTIONS, where);
  const { credentials: credentialQuota, requests: requestQuota } = resolveCredentialQuotas(
    options.quotas,
    where,
  );
  const prefix = keyPrefixOf(options.keyPrefix, where);
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!(timeoutMs > 0))
    throw new KsadkError(
      'invalid_config',
      'createRedisCredentialStore({ timeoutMs }) must be positive.',
    );
  const now = options.now ?? Date.now;
  const connection = openRedis(options, where);
  const client = connection.client;
  const commands = client as unknown as CredentialCommands;
  defineCommands(client, {
    ksadkCredentialPutV1: { numberOfKeys: 2, lua: PUT_CREDENTIAL_SCRIPT },
    ksadkCredentialDeleteV1: { numberOfKeys: 2, lua: DELETE_CREDENTIAL_SCRIPT },
    ksadkCredentialRequestCreateV1: { numberOfKeys: 4, lua: CREATE_REQUEST_SCRIPT },
    ksadkCredentialRequestFindV1: { numberOfKeys: 2, lua: FIND_PENDING_SCRIPT },
    ksadkCredentialRequestUseV1: { numberOfKeys: 1, lua: USE_REQUEST_SCRIPT },
  });
  const base = `${prefix}{${prefix}credentials}:`;
  const credentialKeys = (key: { accountId: string; userId: string; credentialId: string }) => {
    const member = keyHash([key.accountId, key.userId, key.credentialId]);
    return {
      member,
      key: `${base}cred:${member}`,
      account: `${base}creds:${keyHash([key.accountId])}`,
    };
  };
  const requestKey = (id: string): string => `${base}req:${keyHash([id])}`;
  const callKey = (parts: readonly string[]): string => `${base}call:${keyHash(parts)}`;

  /** A request's hash fields: its body (all but the status) and its status. */
  const requestOf = (
    body: string | null | undefined,
    status: string | null | undefined,
  ): CredentialRequestRecord | undefined => {
    const record = parsed<Omit<CredentialRequestRecord, 'status'>>(body);
    return record && (status === 'pending' || status === 'used')
      ? { ...record, status }
      : undefined;
  };

  return {
    shared: true,
    async putCredential(credential) {
      const { member, key, account } = credentialKeys(credential);
      const outcome = await guarded('save a credential', timeoutMs, () =>
        commands.ksadkCredentialPutV1(
          key,
          account,
          member,
          JSON.stringify(credential),
          String(credentialQuota),
        ),
      );
      if (outcome !== 'ok') throw credentialQuotaExceeded('credentials');
    },
    async getCredential(query) {
      const text = await guarded('read a credential', timeoutMs, () =>
        client.get(credentialKeys(query).key),
      );
      return parsed<StoredCredential>(text);
    },
    async deleteCredential(query) {
      const { member, key, account } = credentialKeys(query);
      const deleted = await guarded('delete a credential', timeoutMs, () =>
        commands.ksadkCredentialDeleteV1(key, account, member),
      );
      return deleted === 1;
    },
    async listCredentials({ accountId, userId }) {
      const account = `${base}creds:${keyHash([accountId])}`;
      const texts = await guarded('list credentials', timeoutMs, async () => {
        const members = await client.smembers(account);
        return members.length === 0
          ? []
          : client.mget(members.map((member) => `${base}cred:${member}`));
      });
      return texts
        .map((text) => parsed<StoredCredential>(text))
        .filter(
          (item): item is StoredCredential =>
            item !== undefined &&
            item.accountId === accountId &&
            (userId === undefined || item.userId === userId),
        );
    },
    async createRequest(request) {
      const { status, ...body } = request;
      const at = now();
      const hasCall = request.callId !== undefined;
      const outcome = await guarded('save a credential request', timeoutMs, () =>
        commands.ksadkCredentialRequestCreateV1(
          requestKey(request.id),
          `${base}reqs:${keyHash([request.accountId])}`,
          callKey([request.accountId, request.userId, request.credentialId, request.callId ?? '']),
          `${base}seq`,
          keyHash([request.id]),
          JSON.stringify(body),
          status,
          String(request.expiresAt),
          String(at),
          String(Math.max(1, Math.ceil(request.expiresAt - at))),
          String(requestQuota),
          hasCall ? '1' : '0',
        ),
      );
      if (outcome !== 'ok') throw credentialQuotaExceeded('credential requests');
    },
    async getRequest(id) {
      const [body, status] = await guarded('read a credential request', timeoutMs, () =>
        client.hmget(requestKey(id), 'body', 'status'),
      );
      return requestOf(body, status);
    },
    async findPendingRequest({ accountId, userId, credentialId, callId, now: at }) {
      const body = await guarded('find a credential request', timeoutMs, () =>
        commands.ksadkCredentialRequestFindV1(
          callKey([accountId, userId, credentialId, callId]),
          `${base}seq`,
          String(at),
        ),
      );
      const found = requestOf(body, 'pending');
      // A request replaced under the same id may have left its old call's index behind.
      return found &&
        found.accountId === accountId &&
        found.userId === userId &&
        found.credentialId === credentialId &&
        found.callId === callId
        ? found
        : undefined;
    },
    async useRequest(id, at) {
      const body = await guarded('use a credential request', timeoutMs, () =>
        commands.ksadkCredentialRequestUseV1(requestKey(id), String(at)),
      );
      return requestOf(body, 'pending');
    },
    close: () => connection.close(),
  };
}
