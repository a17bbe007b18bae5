import type { Mutable } from '../util/mutable.js';

/**
 * Where a call is in its life: `started` (written before the tool ran), `succeeded`, `failed`
 * (the tool or the gateway answered `ok: false`, or the call paused to ask), `unknown` (stopped
 * after it started: a timeout or a cancel of a tool with side effects).
 */
export type ExecutionStatus = 'started' | 'succeeded' | 'failed' | 'unknown';

/**
 * A call's outcome as listings report it: a `started` record past its deadline is `unknown` (its
 * process stopped mid-call, or lost its store), one before it `running`.
 */
export type ExecutionOutcome = 'running' | 'succeeded' | 'failed' | 'unknown';

/** One call through the gateway: what ran, for whom, on whose authority, and how it ended. */
export interface ExecutionRecord {
  /** `exec_` + 32 hex characters. */
  readonly id: string;
  /** The framework's tool call id, or the gateway's own when none was given. */
  readonly callId: string;
  /** Whether the caller named `callId`: only such calls are replayed by it. */
  readonly callIdGiven: boolean;
  readonly toolName: string;
  /** SHA-256 of the canonical JSON of the validated arguments the model sent. */
  readonly argsDigest: string;
  readonly accountId: string;
  /** `''` when the call carried no user. */
  readonly userId: string;
  /** `''` when the call carried no session. */
  readonly sessionId: string;
  /** The invocation (one agent run, one request) the call was part of, when known. */
  readonly invocationId?: string;
  /** The approval request whose grant let the call run. */
  readonly approvalId?: string;
  /** The standing grant ("always allow") that let it run. */
  readonly standingGrantId?: string;
  readonly status: ExecutionStatus;
  /** 1 for the first run; a replay of a failed call runs again as attempt 2, 3… */
  readonly attempt: number;
  /** Epoch milliseconds: written before the tool ran. */
  readonly startedAt: number;
  /**
   * Epoch milliseconds after which a record still `started` is reported `unknown`: the call's
   * timeout plus a margin.
   */
  readonly deadlineAt: number;
  /** Epoch milliseconds of the end, once ended. */
  readonly endedAt?: number;
  /** The result's `error_type`, for `failed` and `unknown`. */
  readonly errorType?: string;
  /** The saved result (`tool-results://…`, in the call's own account and session folder). */
  readonly resultHandle?: string;
  /** The result itself, as JSON: kept only by the in-memory store, or when the host opts in. */
  readonly resultJson?: string;
  /**
   * The validated arguments the model sent, as JSON, secrets redacted — when the gateway records
   * them (`executions: { recordArguments: true }`). Larger arguments are kept as a JSON string
   * holding their first characters (see {@link MAX_RECORDED_ARGUMENTS_CHARS}).
   */
  readonly argumentsJson?: string;
  /** Epoch milliseconds after which the store may drop the record. */
  readonly expiresAt: number;
}

/** Characters of arguments a record keeps; past them, a preview of their JSON. */
export const MAX_RECORDED_ARGUMENTS_CHARS = 16 * 1024;

/** What ending a call writes. */
export interface ExecutionEnd {
  readonly status: Exclude<ExecutionStatus, 'started'>;
  readonly endedAt: number;
  readonly errorType?: string;
  readonly resultHandle?: string;
  readonly resultJson?: string;
}

/** A record's outcome at `now` (see {@link ExecutionOutcome}). */
export function outcomeOfRecord(record: ExecutionRecord, now: number): ExecutionOutcome {
  if (record.status !== 'started') return record.status;
  return record.deadlineAt > now ? 'running' : 'unknown';
}

/** A record as listings and `onExecution` show it: without its result or arguments, with its outcome now. */
export type ExecutionSummary = Omit<ExecutionRecord, 'resultJson' | 'argumentsJson'> & {
  readonly outcome: ExecutionOutcome;
};

/** The record as hosts see it at `now`: its outcome, and no result inline. */
export function summaryOfRecord(record: ExecutionRecord, now: number): ExecutionSummary {
  const { resultJson: _result, argumentsJson: _arguments, ...rest } = record;
  return { ...rest, outcome: outcomeOfRecord(record, now) };
}

/**
 * Whether `next` may replace `previous`, a record of the same call: only a retry of a failed call
 * with the same tool and arguments. Anything else keeps the first record.
 */
export const isRetryOf = (previous: ExecutionRecord, next: ExecutionRecord): boolean =>
  previous.status === 'failed' &&
  previous.toolName === next.toolName &&
  previous.argsDigest === next.argsDigest;

/**
 * A frozen copy of `record`, with another attempt number and its end applied when given, and
 * without its `resultJson` when `withResult` is false: built field by field (V8 freezes an object
 * made by spreading slowly, and the in-memory store does this on every call).
 */
export function frozenRecord(
  record: ExecutionRecord,
  attempt: number = record.attempt,
  end?: ExecutionEnd,
  withResult = true,
): ExecutionRecord {
  const copy: Mutable<ExecutionRecord> = {
    id: record.id,
    callId: record.callId,
    callIdGiven: record.callIdGiven,
    toolName: record.toolName,
    argsDigest: record.argsDigest,
    accountId: record.accountId,
    userId: record.userId,
    sessionId: record.sessionId,
    status: end ? end.status : record.status,
    attempt,
    startedAt: record.startedAt,
    deadlineAt: record.deadlineAt,
    expiresAt: record.expiresAt,
  };
  if (record.invocationId !== undefined) copy.invocationId = record.invocationId;
  if (record.approvalId !== undefined) copy.approvalId = record.approvalId;
  if (record.standingGrantId !== undefined) copy.standingGrantId = record.standingGrantId;
  if (record.argumentsJson !== undefined) copy.argumentsJson = record.argumentsJson;
  const ended = end ?? record;
  if (ended.endedAt !== undefined) copy.endedAt = ended.endedAt;
  if (ended.errorType !== undefined) copy.errorType = ended.errorType;
  if (ended.resultHandle !== undefined) copy.resultHandle = ended.resultHandle;
  if (withResult && ended.resultJson !== undefined) copy.resultJson = ended.resultJson;
  return Object.freeze(copy);
}
