import { checkOptions } from '../../errors/check-options.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { RiskLevel } from '../../tool/policy.js';
import {
  type ApprovalQuota,
  type ApprovalQuotaOptions,
  type ApprovalQuotas,
  approvalQuotaExceeded,
  resolveApprovalQuotas,
} from './quotas.js';

export type { ApprovalQuota } from './quotas.js';

/** Where an approval request is in its life. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'consumed';

/** One approval request and its decision, bound to one call. */
export interface ApprovalRecord {
  /** `appr_` + 32 hex characters. */
  readonly id: string;
  /** Hash of tool name, argument digest, account and session: what the decision is bound to. */
  readonly bindingKey: string;
  readonly toolName: string;
  /** SHA-256 of the canonical JSON of the validated arguments. */
  readonly argsDigest: string;
  /** The validated arguments, shown to the human deciding. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Size of the canonical JSON of `arguments`, in characters: what quotas count. */
  readonly argumentsChars: number;
  readonly accountId: string;
  /** The end user the call ran for (`''` when unknown). */
  readonly userId: string;
  readonly sessionId: string;
  readonly riskLevel: RiskLevel;
  readonly sideEffects: readonly string[];
  readonly status: ApprovalStatus;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds after which neither the request nor its grant is honoured. */
  readonly expiresAt: number;
  /** Epoch milliseconds of the decision, once decided. */
  readonly decidedAt?: number;
  /** The host's reason for the decision, if given. */
  readonly reason?: string;
  /**
   * Set on a grant the gateway re-issued for a call that stopped to ask the human a question
   * (`input_required`): the id of the approval it continues. The same call (same tool call id and
   * arguments), resumed with the answer, uses it without asking for approval again — once.
   */
  readonly continues?: string;
}

/**
 * Persistence for approval requests. The in-memory default suits one process; implement
 * this over a shared database or cache to run several server instances. `transition` must be
 * atomic (compare-and-set): it is what makes a grant single-use.
 *
 * Quotas: `create` must keep each account and each session within its limits without ever
 * touching another account's records, and must never drop an approved, unexpired record. When
 * a record cannot fit it throws {@link KsadkError} `approval_quota_exceeded`.
 */
export interface ApprovalStore {
  /**
   * True when several processes (server instances) share this store. The gateway then refuses to
   * start without a configured signing secret (`KSADK_APPROVAL_SECRET`): a per-process random
   * secret would make grants issued by one instance worthless on the others.
   */
  readonly shared?: boolean;
  /** Releases what the store opened itself (connections); a store given a client leaves it open. */
  close?(): Promise<void>;
  /**
   * Saves a new record.
   * @throws {KsadkError} `approval_quota_exceeded` when the record's account or session (or the
   * whole store) is full of requests that may not be dropped.
   */
  create(record: ApprovalRecord): Promise<void>;
  /** The record with this id, if any (expired ones may be returned; callers check `expiresAt`). */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /**
   * The newest unexpired record with this binding key, whatever its status — a `consumed` one too:
   * it is the tombstone that tells a replayed call (same tool call id) that it already ran.
   */
  findOpen(bindingKey: string, now: number): Promise<ApprovalRecord | undefined>;
  /**
   * Atomically moves a record from `from` to `to`, applying `patch`. Returns the updated
   * record, or `undefined` when the record is missing or not in status `from`.
   *
   * A record moved to `consumed` stays until it expires as a tombstone: without its arguments
   * (`{}`, `argumentsChars` 0), counted in its quotas but dropped before any other record when
   * room is needed.
   */
  transition(
    id: string,
    from: ApprovalStatus,
    to: ApprovalStatus,
    patch?: { decidedAt?: number; reason?: string },
  ): Promise<ApprovalRecord | undefined>;
}

/** Options for {@link createInMemoryApprovalStore}. */
export interface InMemoryApprovalStoreOptions extends ApprovalQuotaOptions {
  /** The clock (epoch ms), for tests. @default Date.now */
  now?: () => number;
}

/** Records of one scope, oldest first, with their total size. */
interface Bucket {
  readonly ids: Set<string>;
  chars: number;
}

/** The in-memory store's records, their index by binding and their totals per scope. */
interface MemoryState {
  readonly now: () => number;
  readonly records: Map<string, ApprovalRecord>;
  /** The newest record id per binding key. */
  readonly byBinding: Map<string, string>;
  readonly accounts: Map<string, Bucket>;
  readonly sessions: Map<string, Bucket>;
  totalChars: number;
  /** When expired records were last dropped store-wide (epoch ms). */
  lastSweep: number;
}

const sessionKey = (record: ApprovalRecord): string =>
  JSON.stringify([record.accountId, record.sessionId]);

function bucket(map: Map<string, Bucket>, key: string): Bucket {
  let found = map.get(key);
  if (!found) {
    found = { ids: new Set(), chars: 0 };
    map.set(key, found);
  }
  return found;
}

function remove(state: MemoryState, id: string): void {
  const record = state.records.get(id);
  if (!record) return;
  state.records.delete(id);
  state.totalChars -= record.argumentsChars;
  if (state.byBinding.get(record.bindingKey) === id) state.byBinding.delete(record.bindingKey);
  for (const [map, key] of [
    [state.accounts, record.accountId],
    [state.sessions, sessionKey(record)],
  ] as const) {
    const found = map.get(key);
    if (!found) continue;
    found.ids.delete(id);
    found.chars -= record.argumentsChars;
    if (found.ids.size === 0) map.delete(key);
  }
}

const droppable = (record: ApprovalRecord, at: number): boolean =>
  record.expiresAt <= at || record.status !== 'approved';

/** Drops the bucket's oldest droppable records until `incoming` fits; false when it cannot. */
function makeRoom(
  state: MemoryState,
  found: Bucket | undefined,
  quota: ApprovalQuota,
  incoming: number,
): boolean {
  if (!found) return incoming <= quota.maxChars;
  const at = state.now();
  const fits = (): boolean =>
    found.ids.size + 1 <= quota.maxRecords && found.chars + incoming <= quota.maxChars;
  if (fits()) return true;
  // Expired ones first, then tombstones, then the oldest undecided ones.
  for (const id of [...found.ids]) {
    const record = state.records.get(id);
    if (record && record.expiresAt <= at) remove(state, id);
  }
  for (const id of [...found.ids]) {
    if (fits()) break;
    if (state.records.get(id)?.status === 'consumed') remove(state, id);
  }
  for (const id of [...found.ids]) {
    if (fits()) break;
    const record = state.records.get(id);
    if (record && droppable(record, at)) remove(state, id);
  }
  return fits();
}

/** Drops expired records store-wide, at most once a second (a full store refuses meanwhile). */
function sweepExpired(state: MemoryState): void {
  const at = state.now();
  if (at - state.lastSweep < 1000) return;
  state.lastSweep = at;
  for (const [id, record] of state.records) if (record.expiresAt <= at) remove(state, id);
}

/** {@link ApprovalStore.create}: room made in the record's session and account, then saved. */
function createRecord(state: MemoryState, quotas: ApprovalQuotas, record: ApprovalRecord): void {
  const { perSession, perAccount, total } = quotas;
  const size = record.argumentsChars;
  if (!makeRoom(state, state.sessions.get(sessionKey(record)), perSession, size))
    throw approvalQuotaExceeded('session');
  if (!makeRoom(state, state.accounts.get(record.accountId), perAccount, size))
    throw approvalQuotaExceeded('account');
  const full = (): boolean =>
    state.records.size + 1 > total.maxRecords || state.totalChars + size > total.maxChars;
  if (full()) {
    sweepExpired(state);
    if (full()) throw approvalQuotaExceeded('server');
  }
  state.records.set(record.id, record);
  state.totalChars += size;
  state.byBinding.set(record.bindingKey, record.id);
  for (const found of [
    bucket(state.accounts, record.accountId),
    bucket(state.sessions, sessionKey(record)),
  ]) {
    found.ids.add(record.id);
    found.chars += size;
  }
}

/** {@link ApprovalStore.transition}: a consumed record becomes a tombstone without arguments. */
function transitionRecord(
  state: MemoryState,
  id: string,
  from: ApprovalStatus,
  to: ApprovalStatus,
  patch: { decidedAt?: number; reason?: string },
): ApprovalRecord | undefined {
  const record = state.records.get(id);
  if (!record || record.status !== from) return undefined;
  const next: ApprovalRecord = Object.freeze({ ...record, ...patch, status: to });
  if (to === 'consumed') {
    // A tombstone until it expires: it keeps no arguments, so it frees their quota at once.
    const freed = record.argumentsChars;
    state.totalChars -= freed;
    for (const found of [
      state.accounts.get(record.accountId),
      state.sessions.get(sessionKey(record)),
    ])
      if (found) found.chars -= freed;
    state.records.set(id, Object.freeze({ ...next, arguments: {}, argumentsChars: 0 }));
  } else state.records.set(id, next);
  return next;
}

/**
 * The default {@link ApprovalStore}: bounded maps in this process, with quotas per session, per
 * account and in total (records and argument characters). A new request that would overflow its
 * session or account first drops that same session's or account's oldest *undecided* requests;
 * approved, unexpired grants are never dropped, and no account's traffic ever drops another
 * account's records — past the quotas, new requests are refused (`approval_quota_exceeded`).
 *
 * @example
 * ```ts
 * const gateway = createToolGateway({
 *   approvalStore: createInMemoryApprovalStore({ perSession: { maxRecords: 20 } }),
 * });
 * ```
 */
export function createInMemoryApprovalStore(
  options: InMemoryApprovalStoreOptions = {},
): ApprovalStore {
  checkOptions(
    options,
    { perSession: true, perAccount: true, total: true, now: true },
    'createInMemoryApprovalStore()',
  );
  const quotas = resolveApprovalQuotas(options, 'createInMemoryApprovalStore');
  const state: MemoryState = {
    now: options.now ?? Date.now,
    records: new Map(),
    byBinding: new Map(),
    accounts: new Map(),
    sessions: new Map(),
    totalChars: 0,
    lastSweep: 0,
  };

  return {
    async create(record) {
      createRecord(state, quotas, record);
    },
    async get(id) {
      return state.records.get(id);
    },
    async findOpen(bindingKey, at) {
      const id = state.byBinding.get(bindingKey);
      const record = id === undefined ? undefined : state.records.get(id);
      if (!record || record.expiresAt <= at) return undefined;
      return record;
    },
    async transition(id, from, to, patch = {}) {
      return transitionRecord(state, id, from, to, patch);
    },
  };
}
