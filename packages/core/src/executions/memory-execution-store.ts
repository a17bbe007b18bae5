import { checkOptions } from '../errors/check-options.js';
import { Chain, type Chained } from '../util/chain.js';
import { pageOfRecords } from './execution-listing.js';
import {
  type ExecutionQuotaOptions,
  type ExecutionQuotas,
  executionQuotaExceeded,
  resolveExecutionQuotas,
} from './execution-quotas.js';
import {
  type ExecutionEnd,
  type ExecutionRecord,
  frozenRecord,
  isRetryOf,
  outcomeOfRecord,
} from './execution-record.js';
import type { ExecutionBegin, ExecutionStore } from './execution-store.js';

/** Options for {@link createInMemoryExecutionStore}. */
export interface InMemoryExecutionStoreOptions extends ExecutionQuotaOptions {
  /** The clock (epoch ms), for tests. @default Date.now */
  now?: () => number;
}

/** One session's records: by call id (the calls the caller named), and in insertion order. */
interface SessionState {
  readonly calls: Map<string, Entry>;
  readonly order: Chain<Entry>;
}

/** One account's sessions, its records in insertion order, and the size of its inline results. */
interface AccountState {
  readonly sessions: Map<string, SessionState>;
  readonly order: Chain<Entry>;
  resultChars: number;
  /** Its records that still hold a result, oldest first (what the result quota trims). */
  readonly withResults: Set<Entry>;
}

/**
 * A stored record, the result it keeps off the heap, its insertion number (what listing pages
 * by), where it is indexed, and its neighbours in the store's (chain 0), the account's (1) and the
 * session's (2) order.
 */
class Entry implements Chained<Entry> {
  prev0: Entry | undefined;
  next0: Entry | undefined;
  prev1: Entry | undefined;
  next1: Entry | undefined;
  prev2: Entry | undefined;
  next2: Entry | undefined;
  /** A large result kept as bytes (the record then holds no `resultJson`); see {@link KeptBytes}. */
  bytes: KeptBytes | undefined;
  /** Characters of the result kept (inline or as bytes), which the quotas count; 0 for none. */
  resultChars = 0;

  constructor(
    public record: ExecutionRecord,
    readonly seq: number,
    readonly account: AccountState,
    readonly session: SessionState,
  ) {}
}

/**
 * From this many characters on, a kept result is held as bytes outside the JavaScript heap:
 * thousands of results held for minutes would otherwise be copied by young-generation collections
 * until promoted, then swept as old garbage when trimmed (a call with a call id and a 6 KB result:
 * 28 → 20 µs in a loop, its share of collection 11 → 2 µs). Shorter ones stay in the record, where
 * they cost less than a buffer.
 */
const OFF_HEAP_CHARS = 1024;

/** A large kept result: its JSON as UTF-8, or UTF-16 for a string UTF-8 cannot carry (a lone surrogate). */
interface KeptBytes {
  readonly bytes: Buffer;
  readonly utf16: boolean;
}

function keptBytes(json: string): KeptBytes {
  // `isWellFormed` is ES2024 (Node 20): not in the ES2023 library this package compiles with.
  const utf16 = !(json as unknown as { isWellFormed(): boolean }).isWellFormed();
  return { bytes: Buffer.from(json, utf16 ? 'utf16le' : 'utf8'), utf16 };
}

/** The record as the store gives it out: with the result it keeps, if any. */
function recordOf(entry: Entry): ExecutionRecord {
  const { bytes, record } = entry;
  if (!bytes) return record;
  return Object.freeze({
    ...record,
    resultJson: bytes.bytes.toString(bytes.utf16 ? 'utf16le' : 'utf8'),
  });
}

/**
 * The in-memory {@link ExecutionStore}, the gateway's default: for one process, bounded per
 * account and session, answering at once (no promise), so recording costs a call microseconds.
 * It keeps each call's result (as JSON, within the account's result quota) for replays.
 *
 * @example
 * ```ts
 * const store = createInMemoryExecutionStore({ quotas: { perAccount: 500 } });
 * const gateway = createToolGateway({ executions: { store } });
 * ```
 */
export function createInMemoryExecutionStore(
  options: InMemoryExecutionStoreOptions = {},
): ExecutionStore {
  checkOptions(options, { quotas: true, now: true }, 'createInMemoryExecutionStore()');
  const quotas: ExecutionQuotas = resolveExecutionQuotas(
    options.quotas,
    'createInMemoryExecutionStore()',
  );
  const clock = options.now ?? Date.now;
  const byId = new Map<string, Entry>();
  const all = new Chain<Entry>(0);
  const accounts = new Map<string, AccountState>();
  let nextSeq = 0;
  let resultChars = 0;
  /** Every record that still holds a result, oldest first. */
  const withResults = new Set<Entry>();
  /** Counts the result `entry` now keeps (inline in its record, or as `bytes`). */
  const holdResult = (entry: Entry, chars: number): void => {
    entry.resultChars = chars;
    entry.account.resultChars += chars;
    resultChars += chars;
    entry.account.withResults.add(entry);
    withResults.add(entry);
  };
  /** Forgets the result `entry` keeps; its record stays (unless it is being dropped anyway). */
  const releaseResult = (entry: Entry, dropped = false): void => {
    if (entry.bytes) entry.bytes = undefined;
    else if (!dropped)
      entry.record = frozenRecord(entry.record, entry.record.attempt, undefined, false);
    entry.account.resultChars -= entry.resultChars;
    resultChars -= entry.resultChars;
    entry.resultChars = 0;
    entry.account.withResults.delete(entry);
    withResults.delete(entry);
  };

  const accountOf = (accountId: string): AccountState => {
    let account = accounts.get(accountId);
    if (!account) {
      account = {
        sessions: new Map(),
        order: new Chain(1),
        resultChars: 0,
        withResults: new Set(),
      };
      accounts.set(accountId, account);
    }
    return account;
  };
  const sessionOf = (account: AccountState, sessionId: string): SessionState => {
    let session = account.sessions.get(sessionId);
    if (!session) {
      session = { calls: new Map(), order: new Chain(2) };
      account.sessions.set(sessionId, session);
    }
    return session;
  };

  const drop = (entry: Entry): void => {
    const { record, account, session } = entry;
    byId.delete(record.id);
    all.remove(entry);
    account.order.remove(entry);
    session.order.remove(entry);
    if (record.callIdGiven && session.calls.get(record.callId) === entry)
      session.calls.delete(record.callId);
    if (entry.bytes || record.resultJson !== undefined) releaseResult(entry, true);
    if (session.order.size === 0) account.sessions.delete(record.sessionId);
    if (account.order.size === 0) accounts.delete(record.accountId);
  };

  /**
   * When a scope is full: drops its records oldest first — expired ones, and ended ones until a
   * tenth of the limit is free (so the next calls do not scan again). Running records stay.
   * `counted` is what the limit applies to (the scope itself, or the whole store). With
   * `endedToo` false, only expired records go, from the whole scope. Says whether it scanned.
   */
  const makeRoom = (
    scope: Chain<Entry>,
    counted: Chain<Entry>,
    limit: number,
    now: number,
    endedToo = true,
  ): boolean => {
    if (counted.size < limit) return false;
    const target = limit - Math.max(1, Math.floor(limit / 10));
    for (const entry of scope) {
      if (endedToo && counted.size <= target) break;
      const { record } = entry;
      if (record.expiresAt <= now || (endedToo && outcomeOfRecord(record, now) !== 'running'))
        drop(entry);
    }
    return true;
  };

  let lastStoreSweep = 0;
  /**
   * A full store: anyone's expired records go (a scan of the whole store, at most once a
   * second), then the calling account's own oldest ended ones — never another account's live
   * records.
   */
  const makeRoomInStore = (account: AccountState, now: number): boolean => {
    if (all.size < quotas.total) return false;
    if (now - lastStoreSweep >= 1_000) {
      lastStoreSweep = now;
      makeRoom(all, all, quotas.total, now, false);
    }
    makeRoom(account.order, all, quotas.total, now);
    return true;
  };

  /**
   * Keeps inline results within quota — an account's, or the whole store's when `account` is not
   * given: the oldest results go first (their records stay; a replay of one answers
   * `already_executed`, still without running).
   */
  const trimResults = (account: AccountState | undefined): void => {
    const over = () =>
      account
        ? account.resultChars > quotas.resultCharsPerAccount
        : resultChars > quotas.resultCharsTotal;
    // Only records still holding a result are visited: trimming is not a scan of the store.
    for (const entry of account ? account.withResults : withResults) {
      if (!over()) return;
      releaseResult(entry);
    }
  };

  return {
    inMemory: true,
    begin(record): ExecutionBegin {
      const now = clock();
      // A call id the gateway made up is never delivered again: no lookup, no index.
      const previous = record.callIdGiven
        ? accounts.get(record.accountId)?.sessions.get(record.sessionId)?.calls.get(record.callId)
        : undefined;
      let attempt = record.attempt;
      if (previous) {
        if (previous.record.expiresAt > now) {
          if (!isRetryOf(previous.record, record))
            return { created: false, existing: recordOf(previous) };
          attempt = previous.record.attempt + 1;
        }
        drop(previous);
      }
      let account = accountOf(record.accountId);
      let session = sessionOf(account, record.sessionId);
      // A drop forgets a scope it empties: after a scan, look the scopes up again.
      if (
        makeRoom(session.order, session.order, quotas.perSession, now) ||
        makeRoom(account.order, account.order, quotas.perAccount, now) ||
        makeRoomInStore(account, now)
      ) {
        account = accountOf(record.accountId);
        makeRoom(account.order, account.order, quotas.perAccount, now);
        makeRoomInStore(accountOf(record.accountId), now);
        account = accountOf(record.accountId);
        session = sessionOf(account, record.sessionId);
      }
      if (
        session.order.size >= quotas.perSession ||
        account.order.size >= quotas.perAccount ||
        all.size >= quotas.total
      )
        throw executionQuotaExceeded(record);
      const stored = frozenRecord(record, attempt);
      const { resultJson } = stored;
      const offHeap = resultJson !== undefined && resultJson.length >= OFF_HEAP_CHARS;
      const entry = new Entry(
        offHeap ? frozenRecord(record, attempt, undefined, false) : stored,
        nextSeq++,
        account,
        session,
      );
      all.push(entry);
      account.order.push(entry);
      session.order.push(entry);
      if (offHeap) entry.bytes = keptBytes(resultJson);
      if (resultJson !== undefined) holdResult(entry, resultJson.length);
      byId.set(stored.id, entry);
      if (stored.callIdGiven) session.calls.set(stored.callId, entry);
      return { created: true, record: stored };
    },

    complete(id, end: ExecutionEnd) {
      const entry = byId.get(id);
      if (entry?.record.status !== 'started') return undefined;
      const { resultJson } = end;
      const { attempt } = entry.record;
      // One over the account's whole result quota is not kept at all.
      const kept = resultJson !== undefined && resultJson.length <= quotas.resultCharsPerAccount;
      const offHeap = kept && resultJson.length >= OFF_HEAP_CHARS;
      entry.record = frozenRecord(entry.record, attempt, end, kept && !offHeap);
      if (!kept) return entry.record;
      if (offHeap) entry.bytes = keptBytes(resultJson);
      holdResult(entry, resultJson.length);
      if (entry.account.resultChars > quotas.resultCharsPerAccount) trimResults(entry.account);
      if (resultChars > quotas.resultCharsTotal) trimResults(undefined);
      // The caller gets the result it passed in (nothing to decode), unless it was trimmed at once.
      return entry.bytes ? frozenRecord(entry.record, attempt, end) : entry.record;
    },

    get(id) {
      const entry = byId.get(id);
      return entry && recordOf(entry);
    },

    findCall({ accountId, sessionId, callId, now }) {
      const entry = accounts.get(accountId)?.sessions.get(sessionId)?.calls.get(callId);
      return entry && entry.record.expiresAt > now ? recordOf(entry) : undefined;
    },

    list(query) {
      const account = query.accountId !== undefined ? accounts.get(query.accountId) : undefined;
      const scope =
        query.accountId === undefined
          ? all
          : query.sessionId !== undefined
            ? account?.sessions.get(query.sessionId)?.order
            : account?.order;
      const entries = scope ? scope.toArray() : [];
      const page = pageOfRecords(
        entries,
        (entry) => entry.record,
        (entry) => entry.seq,
        query,
      );
      // Only the page's own results are decoded.
      return { ...page, items: page.items.map((record) => recordOf(byId.get(record.id)!)) };
    },
  };
}
