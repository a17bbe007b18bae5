import { checkOptions } from '../../errors/check-options.js';
import { createMemoryExtras, type MemoryExtras } from './memory-extras.js';
import {
  type ApprovalQuota,
  type ApprovalQuotaOptions,
  type ApprovalQuotas,
  approvalQuotaExceeded,
  resolveApprovalQuotas,
} from './quotas.js';
import { pageSize, requestMatches } from './record-filters.js';
import type { ApprovalPage, ApprovalRequestQuery } from './store-queries.js';
import type {
  ApprovalRecord,
  ApprovalStatus,
  ApprovalStore,
  ApprovalTransitionPatch,
} from './store-types.js';

export type { ApprovalQuota } from './quotas.js';

export type {
  ApprovalEdit,
  ApprovalRecord,
  ApprovalStatus,
  ApprovalStore,
  ApprovalTransitionPatch,
} from './store-types.js';

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
  /** Insertion order of each record (what listing pages by). */
  readonly seqOf: Map<string, number>;
  nextSeq: number;
  /** Ids of the records stored as pending, oldest first: per account, and of every account. */
  readonly pending: Map<string, Set<string>>;
  readonly pendingAll: Set<string>;
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

/**
 * Adds a record to the pending index, or takes it out. A new record is the newest, so the index
 * stays in insertion order; a record moved back to pending (not something the gateway does) is
 * put back in its place.
 */
function indexPending(state: MemoryState, record: ApprovalRecord, pending: boolean): void {
  let mine = state.pending.get(record.accountId);
  if (!pending) {
    state.pendingAll.delete(record.id);
    mine?.delete(record.id);
    if (mine?.size === 0) state.pending.delete(record.accountId);
    return;
  }
  if (!mine) {
    mine = new Set();
    state.pending.set(record.accountId, mine);
  }
  const seq = state.seqOf.get(record.id) ?? 0;
  for (const ids of [state.pendingAll, mine]) {
    ids.add(record.id);
    if (seq === state.nextSeq) continue;
    const sorted = [...ids].sort((a, b) => (state.seqOf.get(a) ?? 0) - (state.seqOf.get(b) ?? 0));
    ids.clear();
    for (const id of sorted) ids.add(id);
  }
}

function remove(state: MemoryState, id: string): void {
  const record = state.records.get(id);
  if (!record) return;
  indexPending(state, record, false);
  state.records.delete(id);
  state.seqOf.delete(id);
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
  remove(state, record.id); // a record with this id is replaced
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
  state.nextSeq += 1;
  state.seqOf.set(record.id, state.nextSeq);
  if (record.status === 'pending') indexPending(state, record, true);
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
  patch: ApprovalTransitionPatch,
): ApprovalRecord | undefined {
  const record = state.records.get(id);
  if (!record || record.status !== from) return undefined;
  const next: ApprovalRecord = Object.freeze({ ...record, ...patch, status: to });
  if ((from === 'pending') !== (to === 'pending')) indexPending(state, record, to === 'pending');
  if (to === 'consumed') {
    // A tombstone until it expires: it keeps no arguments, so it frees their quota at once.
    const freed = record.argumentsChars;
    state.totalChars -= freed;
    for (const found of [
      state.accounts.get(record.accountId),
      state.sessions.get(sessionKey(record)),
    ])
      if (found) found.chars -= freed;
    const { edited: _edited, ...kept } = next;
    state.records.set(id, Object.freeze({ ...kept, arguments: {}, argumentsChars: 0 }));
  } else state.records.set(id, next);
  return next;
}

/** {@link ApprovalStore.listRequests} over the in-memory records. */
function listRecords(
  state: MemoryState,
  query: ApprovalRequestQuery,
): ApprovalPage<ApprovalRecord> {
  // `pending` and `expired` are both stored as pending: their own index, however many others.
  const onlyPending = query.status === 'pending' || query.status === 'expired';
  const { accountId } = query;
  let scope: Iterable<string>;
  if (accountId === undefined) scope = onlyPending ? state.pendingAll : state.records.keys();
  else if (onlyPending) scope = state.pending.get(accountId) ?? [];
  else scope = state.accounts.get(accountId)?.ids ?? [];
  const ids = [...scope];
  const before = query.cursor === undefined ? Infinity : Number(query.cursor);
  const limit = pageSize(query.limit);
  const items: ApprovalRecord[] = [];
  for (let index = ids.length - 1; index >= 0; index -= 1) {
    const id = ids[index]!;
    const seq = state.seqOf.get(id) ?? 0;
    if (!(seq < before)) continue;
    const record = state.records.get(id);
    if (!record || !requestMatches(record, query)) continue;
    if (items.length === limit)
      return { items, nextCursor: String(state.seqOf.get(items.at(-1)!.id)) };
    items.push(record);
  }
  return { items };
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
    {
      perSession: true,
      perAccount: true,
      total: true,
      standingGrants: true,
      audit: true,
      now: true,
    },
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
    seqOf: new Map(),
    nextSeq: 0,
    pending: new Map(),
    pendingAll: new Set(),
  };
  const extras: MemoryExtras = createMemoryExtras(quotas, state.now);

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
    async listRequests(query) {
      return listRecords(state, query);
    },
    ...extras,
  };
}
