import { checkOptions } from '../errors/check-options.js';
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
  isRetryOf,
  outcomeOfRecord,
} from './execution-record.js';
import type { ExecutionBegin, ExecutionStore } from './execution-store.js';

/** Options for {@link createInMemoryExecutionStore}. */
export interface InMemoryExecutionStoreOptions extends ExecutionQuotaOptions {
  /** The clock (epoch ms), for tests. @default Date.now */
  now?: () => number;
}

/** One session's records: by call id, and in insertion order. */
interface SessionState {
  readonly calls: Map<string, Entry>;
  readonly order: Set<Entry>;
}

/** One account's sessions, its records in insertion order, and the size of its inline results. */
interface AccountState {
  readonly sessions: Map<string, SessionState>;
  readonly order: Set<Entry>;
  resultChars: number;
}

/** A stored record, its insertion number (what listing pages by) and where it is indexed. */
interface Entry {
  record: ExecutionRecord;
  readonly seq: number;
  readonly account: AccountState;
  readonly session: SessionState;
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
  const all = new Set<Entry>();
  const accounts = new Map<string, AccountState>();
  let nextSeq = 0;
  let resultChars = 0;

  const accountOf = (accountId: string): AccountState => {
    let account = accounts.get(accountId);
    if (!account) {
      account = { sessions: new Map(), order: new Set(), resultChars: 0 };
      accounts.set(accountId, account);
    }
    return account;
  };
  const sessionOf = (account: AccountState, sessionId: string): SessionState => {
    let session = account.sessions.get(sessionId);
    if (!session) {
      session = { calls: new Map(), order: new Set() };
      account.sessions.set(sessionId, session);
    }
    return session;
  };

  const drop = (entry: Entry): void => {
    const { record, account, session } = entry;
    byId.delete(record.id);
    all.delete(entry);
    account.order.delete(entry);
    session.order.delete(entry);
    if (session.calls.get(record.callId) === entry) session.calls.delete(record.callId);
    if (record.resultJson) {
      account.resultChars -= record.resultJson.length;
      resultChars -= record.resultJson.length;
    }
    if (session.order.size === 0) account.sessions.delete(record.sessionId);
    if (account.order.size === 0) accounts.delete(record.accountId);
  };

  /**
   * When a scope is full: drops its records oldest first — expired ones, and ended ones until a
   * tenth of the limit is free (so the next calls do not scan again). Running records stay.
   * `size` is the count the limit applies to (the scope's own, or the whole store's).
   */
  const makeRoom = (
    scope: Set<Entry>,
    size: () => number,
    limit: number,
    now: number,
    endedToo = true,
  ): void => {
    if (size() < limit) return;
    const target = limit - Math.max(1, Math.floor(limit / 10));
    for (const entry of scope) {
      const { record } = entry;
      if (
        record.expiresAt <= now ||
        (endedToo && size() > target && outcomeOfRecord(record, now) !== 'running')
      )
        drop(entry);
    }
  };

  let lastStoreSweep = 0;
  /**
   * A full store: anyone's expired records go (a scan of the whole store, at most once a
   * second), then the calling account's own oldest ended ones — never another account's live
   * records.
   */
  const makeRoomInStore = (account: AccountState, now: number): void => {
    if (all.size < quotas.total) return;
    if (now - lastStoreSweep >= 1_000) {
      lastStoreSweep = now;
      makeRoom(all, () => all.size, quotas.total, now, false);
    }
    makeRoom(account.order, () => all.size, quotas.total, now);
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
    for (const entry of account ? account.order : all) {
      if (!over()) return;
      const { resultJson, ...rest } = entry.record;
      if (resultJson === undefined) continue;
      entry.account.resultChars -= resultJson.length;
      resultChars -= resultJson.length;
      entry.record = Object.freeze(rest);
    }
  };

  return {
    inMemory: true,
    begin(record): ExecutionBegin {
      const now = clock();
      const previous = accounts
        .get(record.accountId)
        ?.sessions.get(record.sessionId)
        ?.calls.get(record.callId);
      let attempt = record.attempt;
      if (previous) {
        if (previous.record.expiresAt > now) {
          if (!isRetryOf(previous.record, record))
            return { created: false, existing: previous.record };
          attempt = previous.record.attempt + 1;
        }
        drop(previous);
      }
      // A drop forgets a scope it empties: look the scopes up again after each step.
      const inSession = sessionOf(accountOf(record.accountId), record.sessionId).order;
      makeRoom(inSession, () => inSession.size, quotas.perSession, now);
      const inAccount = accountOf(record.accountId).order;
      makeRoom(inAccount, () => inAccount.size, quotas.perAccount, now);
      makeRoomInStore(accountOf(record.accountId), now);
      const account = accountOf(record.accountId);
      const session = sessionOf(account, record.sessionId);
      if (
        session.order.size >= quotas.perSession ||
        account.order.size >= quotas.perAccount ||
        all.size >= quotas.total
      )
        throw executionQuotaExceeded(record);
      const stored = Object.freeze({ ...record, attempt });
      const entry: Entry = { record: stored, seq: nextSeq++, account, session };
      if (stored.resultJson !== undefined) {
        account.resultChars += stored.resultJson.length;
        resultChars += stored.resultJson.length;
      }
      byId.set(stored.id, entry);
      all.add(entry);
      entry.account.order.add(entry);
      entry.session.order.add(entry);
      entry.session.calls.set(stored.callId, entry);
      return { created: true, record: stored };
    },

    complete(id, end: ExecutionEnd) {
      const entry = byId.get(id);
      if (entry?.record.status !== 'started') return undefined;
      const resultJson =
        end.resultJson !== undefined && end.resultJson.length <= quotas.resultCharsPerAccount
          ? end.resultJson
          : undefined;
      entry.record = Object.freeze({
        ...entry.record,
        status: end.status,
        endedAt: end.endedAt,
        ...(end.errorType !== undefined ? { errorType: end.errorType } : {}),
        ...(end.resultHandle !== undefined ? { resultHandle: end.resultHandle } : {}),
        ...(resultJson !== undefined ? { resultJson } : {}),
      });
      if (resultJson !== undefined) {
        entry.account.resultChars += resultJson.length;
        resultChars += resultJson.length;
        if (entry.account.resultChars > quotas.resultCharsPerAccount) trimResults(entry.account);
        if (resultChars > quotas.resultCharsTotal) trimResults(undefined);
      }
      return entry.record;
    },

    get(id) {
      return byId.get(id)?.record;
    },

    findCall({ accountId, sessionId, callId, now }) {
      const record = accounts.get(accountId)?.sessions.get(sessionId)?.calls.get(callId)?.record;
      return record && record.expiresAt > now ? record : undefined;
    },

    list(query) {
      const account = query.accountId !== undefined ? accounts.get(query.accountId) : undefined;
      const scope =
        query.accountId === undefined
          ? all
          : query.sessionId !== undefined
            ? account?.sessions.get(query.sessionId)?.order
            : account?.order;
      const entries = [...(scope ?? [])];
      return pageOfRecords(
        entries,
        (entry) => entry.record,
        (entry) => entry.seq,
        query,
      );
    },
  };
}
