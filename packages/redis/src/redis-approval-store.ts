import { createHash } from 'node:crypto';
import {
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  KsadkError,
} from '@ksadk/core';
import {
  type ApprovalQuota,
  type ApprovalQuotaOptions,
  approvalQuotaExceeded,
  checkOptions,
  type OptionKeys,
  resolveApprovalQuotas,
} from '@ksadk/core/adapter';
import { CREATE_SCRIPT, FIND_OPEN_SCRIPT, TRANSITION_SCRIPT } from './approval-scripts.js';
import { keyPrefixOf } from './key-prefix.js';
import { openRedis, type RedisConnectionOptions } from './redis-connection.js';
import { guarded } from './store-error.js';

/**
 * Options of {@link createRedisApprovalStore}. Quotas are core's ({@link ApprovalQuotaOptions});
 * `total` counts every process sharing the key prefix.
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
  now: true,
  timeoutMs: true,
} as const satisfies OptionKeys<RedisApprovalStoreOptions>;

/** A quota as the create script reads it: whole numbers, as strings. */
const quotaArgs = (quota: ApprovalQuota): string[] => [
  String(Math.floor(quota.maxRecords)),
  String(Math.floor(quota.maxChars)),
];

const hash = (parts: readonly string[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/** The commands this store defines on its client (versioned: a new layout gets new names). */
interface ApprovalCommands {
  ksadkApprovalCreateV1(...args: (string | number)[]): Promise<string>;
  ksadkApprovalTransitionV1(...args: string[]): Promise<string[] | null>;
  ksadkApprovalFindOpenV1(...args: string[]): Promise<string[] | null>;
}

/** The fixed part of a record, stored as JSON (the arguments are stored on their own). */
type RecordBody = Omit<
  ApprovalRecord,
  'status' | 'decidedAt' | 'reason' | 'arguments' | 'argumentsChars'
>;

/** A record from its HGETALL reply (`[field, value, …]`). */
function recordOf(fields: readonly string[]): ApprovalRecord | undefined {
  const map = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2)
    map.set(fields[index]!, fields[index + 1]!);
  const body = map.get('body');
  const status = map.get('status');
  const args = map.get('args');
  if (body === undefined || status === undefined || args === undefined) return undefined;
  const decidedAt = map.get('decidedAt');
  const reason = map.get('reason');
  return {
    ...(JSON.parse(body) as RecordBody),
    arguments: JSON.parse(args) as Record<string, unknown>,
    argumentsChars: Number(map.get('chars') ?? 0),
    status: status as ApprovalStatus,
    ...(decidedAt !== undefined ? { decidedAt: Number(decidedAt) } : {}),
    ...(reason !== undefined ? { reason } : {}),
  };
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
  const { perSession, perAccount, total } = resolveApprovalQuotas(
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
  if (typeof commands.ksadkApprovalCreateV1 !== 'function') {
    client.defineCommand('ksadkApprovalCreateV1', { numberOfKeys: 6, lua: CREATE_SCRIPT });
    client.defineCommand('ksadkApprovalTransitionV1', { numberOfKeys: 2, lua: TRANSITION_SCRIPT });
    client.defineCommand('ksadkApprovalFindOpenV1', { numberOfKeys: 2, lua: FIND_OPEN_SCRIPT });
  }
  const base = `${prefix}{${prefix}approvals}:`;
  const recKey = (id: string): string => `${base}rec:${id}`;
  const metaKey = `${base}meta`;
  const patchArgs = (patch: { decidedAt?: number; reason?: string }): string[] => [
    patch.decidedAt === undefined ? '' : String(patch.decidedAt),
    patch.reason === undefined ? '0' : '1',
    patch.reason ?? '',
  ];

  return {
    shared: true,
    async create(record) {
      const { status, decidedAt, reason, arguments: args, argumentsChars: _, ...body } = record;
      const bindHash = hash([record.bindingKey]);
      const sessHash = hash([record.accountId, record.sessionId]);
      const acctHash = hash([record.accountId]);
      const at = now();
      const ttl = String(Math.max(1, Math.ceil(record.expiresAt - at)));
      const outcome = await guarded('save an approval request', timeoutMs, () =>
        commands.ksadkApprovalCreateV1(
          recKey(record.id),
          metaKey,
          `${base}bind:${bindHash}`,
          `${base}sess:${sessHash}`,
          `${base}acct:${acctHash}`,
          `${base}seq`,
          record.id,
          bindHash,
          sessHash,
          acctHash,
          String(Math.max(0, Math.floor(record.argumentsChars))),
          String(record.expiresAt),
          String(at),
          ttl,
          JSON.stringify(body),
          status,
          ...patchArgs({ decidedAt, reason }),
          ...quotas,
          JSON.stringify(args),
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
        commands.ksadkApprovalTransitionV1(recKey(id), metaKey, id, from, to, ...patchArgs(patch)),
      );
      return fields ? recordOf(fields) : undefined;
    },
    close: () => connection.close(),
  };
}
