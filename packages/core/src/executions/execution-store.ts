import type { ExecutionEnd, ExecutionOutcome, ExecutionRecord } from './execution-record.js';

/** A value, or a promise of it: the in-memory store answers at once, shared stores later. */
export type Awaitable<T> = T | Promise<T>;

/** What {@link ExecutionStore.begin} found: the record was written, or another of the same call was there. */
export type ExecutionBegin =
  | { readonly created: true; readonly record: ExecutionRecord }
  | { readonly created: false; readonly existing: ExecutionRecord };

/** What {@link ExecutionStore.list} selects. Every field narrows the selection. */
export interface ExecutionQuery {
  /** One account's records; absent: every account's (admin tooling). */
  readonly accountId?: string;
  /** Records of this user, or of calls that carried no user. */
  readonly userId?: string;
  readonly sessionId?: string;
  readonly toolName?: string;
  /** Records started at or after this time (epoch ms). */
  readonly since?: number;
  /** @default every outcome */
  readonly outcome?: ExecutionOutcome;
  /** The clock (epoch ms) `running` and `unknown` are decided by. */
  readonly now: number;
  /** 1 to 500. */
  readonly limit: number;
  readonly cursor?: string;
}

/** One page of records, newest first. */
export interface ExecutionPage {
  readonly items: readonly ExecutionRecord[];
  /** Pass it back as `cursor` for the next (older) page; absent on the last page. */
  readonly nextCursor?: string;
}

/**
 * Persistence for execution records: one per call through the gateway, written before the tool
 * runs and completed after. `begin` must be atomic (create-if-absent on the call's account,
 * session and call id): it is what makes a replayed call, or two instances resuming the same
 * call at once, run the tool once.
 *
 * Quotas: `begin` keeps each account and session within its limits without touching another
 * account's records, dropping expired records first, then the oldest ended ones; a record still
 * running is never dropped. When a record cannot fit it throws {@link KsadkError}
 * `execution_quota_exceeded`.
 */
export interface ExecutionStore {
  /** True when several processes share it. */
  readonly shared?: boolean;
  /**
   * True when its records live in this process's memory (nothing is persisted): the gateway then
   * keeps results in the records by default.
   */
  readonly inMemory?: boolean;
  /** Releases what the store opened itself. */
  close?(): Promise<void>;
  /**
   * Writes a new `started` record, unless the store holds an unexpired record of the same call
   * (account, session, call id): then that one comes back as `existing` — except a `failed`
   * record of the same tool and arguments, which the new one replaces (a retry).
   * @throws {KsadkError} `execution_quota_exceeded`
   */
  begin(record: ExecutionRecord): Awaitable<ExecutionBegin>;
  /**
   * Ends a `started` record (compare-and-set on its status): the ended record, or `undefined`
   * when it is missing or already ended.
   */
  complete(id: string, end: ExecutionEnd): Awaitable<ExecutionRecord | undefined>;
  /** The record with this id, if the store still holds it. */
  get(id: string): Awaitable<ExecutionRecord | undefined>;
  /**
   * The unexpired record of one call the caller named (account, session, call id), if any. A
   * call id the gateway made up (`callIdGiven: false`) is never delivered again: a store need not
   * index it.
   */
  findCall(call: {
    readonly accountId: string;
    readonly sessionId: string;
    readonly callId: string;
    readonly now: number;
  }): Awaitable<ExecutionRecord | undefined>;
  /** Records newest first (by when `begin` wrote them), paged, narrowed by the query. */
  list(query: ExecutionQuery): Awaitable<ExecutionPage>;
}
