import { type ApprovalStore, KsadkError } from '@ksadk/core';
import {
  type ApprovalQuota,
  type ApprovalQuotaOptions,
  approvalQuotaExceeded,
  checkOptions,
  type OptionKeys,
  resolveApprovalQuotas,
} from '@ksadk/core/adapter';
import { listingArgs, patchArgs, type RecordBody, recordOf } from './approval-record-hash.js';
import { CREATE_SCRIPT, FIND_OPEN_SCRIPT, TRANSITION_SCRIPT } from './approval-scripts.js';
import { keyPrefixOf } from './key-prefix.js';
import { redisAuditLog } from './redis-audit-log.js';
import { openRedis, type RedisConnectionOptions } from './redis-connection.js';
import { redisRequestList } from './redis-request-list.js';
import { redisStandingGrants } from './redis-standing-grants.js';
import { defineCommands, keyHash as hash, type RedisStoreContext } from './redis-store-context.js';
import { guarded } from './store-error.js';

/**
 * Options of {@link createRedisApprovalStore}. Quotas are core's ({@link ApprovalQuotaOptions}):
 * requests per session, per account and in total, `standingGrants` (per account and in total)
 * and the audit log's retention (`audit`: age, per account, in total); each total counts every
 * process sharing the key prefix.
 */
export interface RedisApprovalStoreOptions extends RedisConnectionOptions, ApprovalQuotaOptions {
  /** Prefix of every key (no `{` or `}`: the store adds its own hash tag). @default 'ksadk:' */
  keyPrefix?: string;
  /** The clock (epoch ms) used for expiry decisions. @default Date.now */
  now?: () => number;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 5000 */
  timeoutMs?: number;
}

/** An {@link ApprovalStore} shared by every process that uses the same Redis and key prefix. */
export interface RedisApprovalStore extends ApprovalStore {
  readonly shared: true;
  /** Closes the client the store opened from `url`; a client you passed stays open. */
  close(): Promise<void>;
}

const OPTIONS = {
  client: true,
  url: true,
  keyPrefix: true,
  perSession: true,
  perAccount: true,
  total: true,
  standingGrants: true,
  audit: true,
  now: true,
  timeoutMs: true,
} as const satisfies OptionKeys<RedisApprovalStoreOptions>;

/** A quota as the create script reads it: whole numbers, as strings. */
const quotaArgs = (quota: ApprovalQuota): string[] => [
  String(Math.floor(quota.maxRecords)),
  String(Math.floor(quota.maxChars)),
];

/** The commands this store defines on its client (versioned: a new layout gets new names). */
interface ApprovalCommands {
  ksadkApprovalCreateV2(...args: (string | number)[]): Promise<string>;
  ksadkApprovalTransitionV2(...args: string[]): Promise<string[] | null>;
  ksadkApprovalFindOpenV1(...args: string[]): Promise<string[] | null>;
}

/**
 * An {@link ApprovalStore} on Redis, for several server instances: every process that points at
 * the same Redis and key prefix sees the same requests, and a grant is consumed once whichever
 * process presents it.
 *
 * - `create` and `transition` are Lua scripts, so they are atomic across processes: of any
 *   number of concurrent consumes of one grant exactly one succeeds.
 * - Quotas are kept inside Redis, exactly like the in-memory store: per session, per account and
 *   in total (records and argument characters); a new request that would overflow its session or
 *   account first drops that session's or account's expired, then oldest undecided requests;
 *   approved, unexpired grants are never dropped and no account touches another's records.
 * - Every record key expires with its approval (`PX`); the indexes forget expired ids when the
 *   quotas are checked.
 * - The inbox listing (`listRequests`) reads the narrowest index that holds the candidates (the
 *   session's or account's records, their undecided or tombstone index, or every record) newest
 *   first, filtering inside one script call per page.
 * - Standing grants are hashes indexed per account and per (account, tool); saving (with its
 *   quotas: expired, then revoked grants dropped first, active ones never) and revoking (a
 *   compare-and-set) are Lua scripts.
 * - The audit log is a stream per account plus one of every record, trimmed on append by age
 *   and count (at most a few hundred records per append).
 *
 * Driver failures and timeouts throw {@link KsadkError} `store_unavailable`, without the URL or
 * password in the message.
 *
 * @example
 * ```ts
 * const approvalStore = createRedisApprovalStore({ url: 'redis://127.0.0.1:6379' });
 * const gateway = createToolGateway({ approvalStore, approvalSecret: process.env.KSADK_APPROVAL_SECRET });
 * // … on shutdown:
 * await approvalStore.close();
 * ```
 */
export function createRedisApprovalStore(options: RedisApprovalStoreOptions): RedisApprovalStore {
  checkOptions(options, OPTIONS, 'createRedisApprovalStore()');
  const { perSession, perAccount, total, standingGrants, audit } = resolveApprovalQuotas(
    options,
    'createRedisApprovalStore',
  );
  const prefix = keyPrefixOf(options.keyPrefix, 'createRedisApprovalStore()');
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!(timeoutMs > 0))
    throw new KsadkError(
      'invalid_config',
      'createRedisApprovalStore({ timeoutMs }) must be positive.',
    );
  const now = options.now ?? Date.now;
  const quotas = [...quotaArgs(perSession), ...quotaArgs(perAccount), ...quotaArgs(total)];
  const connection = openRedis(options, 'createRedisApprovalStore()');
  const client = connection.client;
  const commands = client as unknown as ApprovalCommands;
  defineCommands(client, {
    ksadkApprovalCreateV2: { numberOfKeys: 7, lua: CREATE_SCRIPT },
    ksadkApprovalTransitionV2: { numberOfKeys: 2, lua: TRANSITION_SCRIPT },
    ksadkApprovalFindOpenV1: { numberOfKeys: 2, lua: FIND_OPEN_SCRIPT },
  });
  const base = `${prefix}{${prefix}approvals}:`;
  const recKey = (id: string): string => `${base}rec:${id}`;
  const metaKey = `${base}meta`;
  const context: RedisStoreContext = { client, base, timeoutMs, now };

  return {
    shared: true,
    async create(record) {
      const {
        status,
        decidedAt,
        reason,
        decidedBy,
        edited,
        arguments: args,
        argumentsChars: _,
        ...body
      } = record;
      const bindHash = hash([record.bindingKey]);
      const sessHash = hash([record.accountId, record.sessionId]);
      const acctHash = hash([record.accountId]);
      const at = now();
      const ttl = String(Math.max(1, Math.ceil(record.expiresAt - at)));
      const outcome = await guarded('save an approval request', timeoutMs, () =>
        commands.ksadkApprovalCreateV2(
          recKey(record.id),
          metaKey,
          `${base}bind:${bindHash}`,
          `${base}sess:${sessHash}`,
          `${base}acct:${acctHash}`,
          `${base}seq`,
          `${base}all`,
          record.id,
          bindHash,
          sessHash,
          acctHash,
          String(Math.max(0, Math.floor(record.argumentsChars))),
          String(record.expiresAt),
          String(at),
          ttl,
          JSON.stringify(body satisfies RecordBody),
          status,
          ...patchArgs({ decidedAt, reason }).slice(0, 3),
          ...quotas,
          JSON.stringify(args),
          ...patchArgs({ decidedBy, edited }).slice(3),
          ...listingArgs(record),
        ),
      );
      if (outcome !== 'ok') {
        throw approvalQuotaExceeded(outcome as 'session' | 'account' | 'server');
      }
    },
    async get(id) {
      const fields = await guarded('read an approval request', timeoutMs, () =>
        client.hgetall(recKey(id)),
      );
      return recordOf(Object.entries(fields).flat());
    },
    async findOpen(bindingKey, at) {
      const fields = await guarded('find an open approval request', timeoutMs, () =>
        commands.ksadkApprovalFindOpenV1(`${base}bind:${hash([bindingKey])}`, metaKey, String(at)),
      );
      return fields ? recordOf(fields) : undefined;
    },
    async transition(id, from, to, patch = {}) {
      const fields = await guarded('update an approval request', timeoutMs, () =>
        commands.ksadkApprovalTransitionV2(recKey(id), metaKey, id, from, to, ...patchArgs(patch)),
      );
      return fields ? recordOf(fields) : undefined;
    },
    listRequests: redisRequestList(context),
    ...redisStandingGrants(context, standingGrants),
    ...redisAuditLog(context, audit),
    close: () => connection.close(),
  };
}
