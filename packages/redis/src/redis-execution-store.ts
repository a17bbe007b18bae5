import { type ExecutionStore, KsadkError } from '@ksadk/core';
import {
  checkOptions,
  type ExecutionQuotaOptions,
  executionQuotaExceeded,
  type OptionKeys,
  resolveExecutionQuotas,
} from '@ksadk/core/adapter';
import { bodyOf, executionOf } from './execution-record-hash.js';
import { BEGIN_SCRIPT, COMPLETE_SCRIPT, FIND_CALL_SCRIPT } from './execution-scripts.js';
import { keyPrefixOf } from './key-prefix.js';
import { openRedis, type RedisConnectionOptions } from './redis-connection.js';
import { redisExecutionList } from './redis-execution-list.js';
import { defineCommands, filterArgs, keyHash } from './redis-store-context.js';
import { guarded } from './store-error.js';

/**
 * Options of {@link createRedisExecutionStore}. Quotas are core's ({@link ExecutionQuotaOptions}):
 * records per session, per account and in total (every process sharing the key prefix), and
 * inline result characters per account.
 */
export interface RedisExecutionStoreOptions extends RedisConnectionOptions, ExecutionQuotaOptions {
  /** Prefix of every key (no `{` or `}`: the store adds its own hash tag). @default 'ksadk:' */
  keyPrefix?: string;
  /** The clock (epoch ms) used for expiry decisions. @default Date.now */
  now?: () => number;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 5000 */
  timeoutMs?: number;
}

const OPTIONS = {
  client: true,
  url: true,
  keyPrefix: true,
  quotas: true,
  now: true,
  timeoutMs: true,
} as const satisfies OptionKeys<RedisExecutionStoreOptions>;

/** An {@link ExecutionStore} shared by every process that uses the same Redis and key prefix. */
export interface RedisExecutionStore extends ExecutionStore {
  readonly shared: true;
  /** Closes the client the store opened from `url`; a client you passed stays open. */
  close(): Promise<void>;
}

/** What the begin script answers. */
type BeginReply = ['created', number] | ['existing', string[]] | ['full'];

/** The commands this store defines on its client (versioned: a new layout gets new names). */
interface ExecutionCommands {
  ksadkExecutionBeginV1(...args: string[]): Promise<BeginReply>;
  ksadkExecutionCompleteV1(...args: string[]): Promise<string[] | null>;
  ksadkExecutionFindCallV1(...args: string[]): Promise<string[] | null>;
}

/**
 * An {@link ExecutionStore} on Redis, for several server instances: every process that points at
 * the same Redis and key prefix sees the same execution records, so a call id replayed on any
 * instance — or resumed by two at once — runs its tool once.
 *
 * - `begin` is one Lua script (one round trip): the create-if-absent on the call's account,
 *   session and call id (a failed run of the same tool and arguments is replaced by its retry),
 *   with the quotas per session, per account and in total kept exactly as core's in-memory store
 *   keeps them — expired records go first, then a full scope's oldest records that are not
 *   running (ended, or started and past their deadline); a running record is never dropped, and
 *   a full store makes room from the calling account's own records: no account's traffic drops
 *   another account's live records.
 * - `complete` is one Lua script, a compare-and-set from `started`. A result kept inline
 *   (`resultJson`) counts toward its account's `resultCharsPerAccount` and the store's
 *   `resultCharsTotal`; past either the oldest results are dropped (their records stay).
 * - Every key sits under one hash tag (`<prefix>{<prefix>executions}:`), so the store works on
 *   Redis Cluster; record, account, session and call ids reach keys only as SHA-256 hashes.
 * - Records and call keys expire with the record (`PEXPIRE`); the indexes drop expired records on
 *   every `begin` (up to 1,000 at a time; more when a quota is reached).
 * - `list` is one script call per page over the narrowest index (the session's, the account's,
 *   or every record), newest first; it never returns another account's records.
 *
 * Driver failures and timeouts throw {@link KsadkError} `store_unavailable`, without the URL or
 * password in the message.
 *
 * @example
 * ```ts
 * const store = createRedisExecutionStore({ url: 'redis://127.0.0.1:6379' });
 * const gateway = createToolGateway({ executions: { store } });
 * // … on shutdown:
 * await store.close();
 * ```
 */
export function createRedisExecutionStore(
  options: RedisExecutionStoreOptions,
): RedisExecutionStore {
  const where = 'createRedisExecutionStore()';
  checkOptions(options, OPTIONS, where);
  const quotas = resolveExecutionQuotas(options.quotas, where);
  const prefix = keyPrefixOf(options.keyPrefix, where);
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!(timeoutMs > 0))
    throw new KsadkError(
      'invalid_config',
      'createRedisExecutionStore({ timeoutMs }) must be positive.',
    );
  const now = options.now ?? Date.now;
  const connection = openRedis(options, where);
  const client = connection.client;
  const commands = client as unknown as ExecutionCommands;
  defineCommands(client, {
    ksadkExecutionBeginV1: { numberOfKeys: 7, lua: BEGIN_SCRIPT },
    ksadkExecutionCompleteV1: { numberOfKeys: 2, lua: COMPLETE_SCRIPT },
    ksadkExecutionFindCallV1: { numberOfKeys: 2, lua: FIND_CALL_SCRIPT },
  });
  const base = `${prefix}{${prefix}executions}:`;
  const metaKey = `${base}meta`;
  const recKey = (idHash: string): string => `${base}rec:${idHash}`;
  const callKey = (call: { accountId: string; sessionId: string; callId: string }): string =>
    `${base}call:${keyHash([call.accountId, call.sessionId, call.callId])}`;

  return {
    shared: true,
    async begin(record) {
      const body = bodyOf(record);
      const idHash = keyHash([record.id]);
      const sessHash = keyHash([record.accountId, record.sessionId]);
      const acctHash = keyHash([record.accountId]);
      const callHash = keyHash([record.accountId, record.sessionId, record.callId]);
      const at = now();
      const [outcome, value] = await guarded('record a call', timeoutMs, () =>
        commands.ksadkExecutionBeginV1(
          recKey(idHash),
          metaKey,
          `${base}call:${callHash}`,
          `${base}sess:${sessHash}`,
          `${base}acct:${acctHash}`,
          `${base}seq`,
          `${base}all`,
          idHash,
          sessHash,
          acctHash,
          callHash,
          JSON.stringify(body),
          record.status,
          String(record.attempt),
          record.toolName,
          record.argsDigest,
          record.userId,
          record.sessionId,
          String(record.startedAt),
          String(record.deadlineAt),
          String(record.expiresAt),
          String(at),
          String(Math.max(1, Math.ceil(record.expiresAt - at))),
          String(quotas.perSession),
          String(quotas.perAccount),
          String(quotas.total),
        ),
      );
      if (outcome === 'full') throw executionQuotaExceeded(record);
      if (outcome === 'existing') return { created: false, existing: executionOf(value)! };
      return { created: true, record: { ...body, status: record.status, attempt: value } };
    },
    async complete(id, end) {
      const idHash = keyHash([id]);
      // A result longer than the account's whole quota is not kept inline.
      const kept =
        end.resultJson !== undefined && end.resultJson.length <= quotas.resultCharsPerAccount
          ? end.resultJson
          : undefined;
      const fields = await guarded('end a call record', timeoutMs, () =>
        commands.ksadkExecutionCompleteV1(
          recKey(idHash),
          metaKey,
          idHash,
          end.status,
          String(end.endedAt),
          ...filterArgs(end.errorType),
          ...filterArgs(end.resultHandle),
          ...filterArgs(kept),
          String(kept?.length ?? 0),
          String(quotas.resultCharsPerAccount),
          String(quotas.resultCharsTotal),
        ),
      );
      return fields ? executionOf(fields) : undefined;
    },
    async get(id) {
      const fields = await guarded('read a call record', timeoutMs, () =>
        client.hgetall(recKey(keyHash([id]))),
      );
      return executionOf(Object.entries(fields).flat());
    },
    async findCall(call) {
      const fields = await guarded('find a call record', timeoutMs, () =>
        commands.ksadkExecutionFindCallV1(callKey(call), metaKey, String(call.now)),
      );
      return fields ? executionOf(fields) : undefined;
    },
    list: redisExecutionList({ client, base, timeoutMs, now }),
    close: () => connection.close(),
  };
}
