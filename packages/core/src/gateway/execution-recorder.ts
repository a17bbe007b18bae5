import { createHash, randomBytes } from 'node:crypto';
import type { ResultBudget } from '../budget/result-budget.js';
import { persistToStore, resultStem } from '../budget/result-store.js';
import type { InvocationContext } from '../context/invocation-context.js';
import { KsadkError } from '../errors/ksadk-error.js';
import {
  type ExecutionEnd,
  type ExecutionRecord,
  type ExecutionStatus,
  type ExecutionSummary,
  MAX_RECORDED_ARGUMENTS_CHARS,
  outcomeOfRecord,
  summaryOfRecord,
} from '../executions/execution-record.js';
import type { Awaitable, ExecutionBegin, ExecutionStore } from '../executions/execution-store.js';
import type { Tool } from '../tool/tool.js';
import { canonicalDigest } from '../util/canonical-json.js';
import type { Mutable } from '../util/mutable.js';
import { redactDeep } from '../util/redact.js';
import { echoValue } from '../util/sanitize-message.js';
import { isThenable } from '../util/thenable.js';
import type { GrantedCall } from './approval/gate.js';
import { readKeptResult } from './kept-result.js';
import { gatewayFailure, type ToolResult } from './results.js';

/** How a gateway keeps its execution records (checked options, with defaults). */
export interface ExecutionSettings {
  readonly store: ExecutionStore;
  /** Where a succeeded call's result is kept for replays: in the record, or in the result store. */
  readonly results: 'inline' | 'files';
  /** How long records are kept (epoch ms from their start). */
  readonly retentionMs: number;
  /** Whether records keep the (redacted) arguments. */
  readonly recordArguments: boolean;
  readonly onExecution: ((record: ExecutionSummary) => unknown) | undefined;
}

/** One call about to run. */
export interface CallToRecord {
  readonly tool: Tool;
  /** The validated arguments the model sent (before a human's edit). */
  readonly args: Record<string, unknown>;
  readonly callId: string;
  readonly callIdGiven: boolean;
  readonly context: InvocationContext;
  readonly grant: GrantedCall | undefined;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/** The call may run (its record is written), or it is answered without running. */
export type Begun = { readonly record: ExecutionRecord } | { readonly answer: ToolResult };

/** What a gated call does with its execution record. */
export interface ExecutionRecorder {
  /** Writes the record before the tool runs, or answers a replay, a conflict, an unknown outcome. */
  begin(call: CallToRecord): Awaitable<Begun>;
  /** Ends the record with the call's result (kept for replays when it succeeded); returns the result. */
  end(record: ExecutionRecord, call: CallToRecord, result: ToolResult): Awaitable<ToolResult>;
  /**
   * A replayed approved call (its approval already used): the recorded result, when the first
   * run succeeded and kept it; else `undefined`.
   */
  replayOfUsedApproval(call: CallToRecord): Promise<ToolResult | undefined>;
}

/** Past the call's timeout, this long before a record still `started` counts as unknown. */
export const DEADLINE_MARGIN_MS = 5_000;
/** The longest a replay waits for the first run of its call, when it runs in another process. */
const MAX_REPLAY_WAIT_MS = 30_000;
/** Results longer than this (as JSON) are saved to the result store even when kept inline. */
const MAX_INLINE_RESULT_CHARS = 256 * 1024;

// Record ids: a random per-process prefix and a counter (unique, and cheap on the hot path).
const ID_PREFIX = `exec_${randomBytes(8).toString('hex')}`;
let idCounter = 0;
const nextId = (): string => {
  idCounter += 1;
  return `${ID_PREFIX}${idCounter.toString(16).padStart(16, '0')}`;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Longest call id a record keeps as is; a longer one is kept as its SHA-256 (`sha256:<hex>`). */
const MAX_RECORDED_CALL_ID = 256;
/** Bound on one store operation: a store that never answers costs the call this, not forever. */
const STORE_TIMEOUT_MS = 10_000;

/** The call id as records hold it: bounded, so no delivery can make a record huge. */
const recordedCallId = (callId: string): string =>
  callId.length > MAX_RECORDED_CALL_ID
    ? `sha256:${createHash('sha256').update(callId).digest('hex')}`
    : callId;

/** `value`, or a rejection with a `store_unavailable` error when it takes over `ms`. */
function bounded<T>(value: Awaitable<T>, ms = STORE_TIMEOUT_MS): Awaitable<T> {
  if (!isThenable(value)) return value;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new KsadkError('store_unavailable', `the execution store did not answer within ${ms} ms`),
        ),
      ms,
    );
  });
  return Promise.race([value as Promise<T>, late]).finally(() => clearTimeout(timer));
}

/** The status a result ends its record with. */
function statusOf(result: ToolResult): Exclude<ExecutionStatus, 'started'> {
  if (result.ok !== false) return 'succeeded';
  return result['error_type'] === 'outcome_unknown' ? 'unknown' : 'failed';
}

function conflict(call: CallToRecord, existing: ExecutionRecord): ToolResult {
  const same = existing.toolName === call.tool.name;
  return gatewayFailure(
    'call_id_conflict',
    `Tool call id ${echoValue(call.callId, 80)} was already used for ${same ? 'another call' : `a call of ${existing.toolName}`} with other arguments in this session; nothing ran. Give each call its own id.`,
    { tool_name: call.tool.name },
  );
}

function unknownOutcome(
  call: CallToRecord,
  existing: ExecutionRecord,
  running: boolean,
): ToolResult {
  return gatewayFailure(
    'outcome_unknown',
    running
      ? `This call to ${call.tool.name} (tool call ${echoValue(call.callId, 80)}) is still running elsewhere, or its process stopped; its outcome is not known yet. Do not repeat it without checking what it did.`
      : `This call to ${call.tool.name} (tool call ${echoValue(call.callId, 80)}) was started before and its outcome is unknown: it may or may not have taken effect. Do not repeat it without checking what it did.`,
    { outcome: 'unknown', execution_id: existing.id },
  );
}

function alreadyExecuted(call: CallToRecord, existing: ExecutionRecord): ToolResult {
  return gatewayFailure(
    'already_executed',
    `This call to ${call.tool.name} (tool call ${echoValue(call.callId, 80)}) already ran and succeeded; its result is no longer kept here. It was not run again.`,
    { execution_id: existing.id },
  );
}

/** A duplicate that waited on a first delivery that failed, whose result is no longer kept. */
function firstFailed(call: CallToRecord, existing: ExecutionRecord): ToolResult {
  return gatewayFailure(
    'tool_error',
    `The first delivery of this call to ${call.tool.name} (tool call ${echoValue(call.callId, 80)}) failed${existing.errorType ? ` (${echoValue(existing.errorType, 40)})` : ''}; it was not run again.`,
    { execution_id: existing.id },
  );
}

/** A store error as the model's answer: the call did not run. No store's own message is shown. */
function storeFailure(error: unknown): ToolResult {
  if (KsadkError.isInstance(error) && error.code === 'execution_quota_exceeded')
    return gatewayFailure('execution_quota_exceeded', error.message);
  return gatewayFailure(
    'store_unavailable',
    'The call could not be recorded before it ran (the execution store failed or did not answer); nothing ran. Try again later.',
  );
}

/** The gateway's execution recorder. */
export function createExecutionRecorder(
  settings: ExecutionSettings,
  budget: ResultBudget,
  reportHookError: (error: unknown, hook: string) => void,
): ExecutionRecorder {
  const { store } = settings;
  /** Calls running in this process (record ids), and the replays waiting for their results. */
  const running = new Set<string>();
  const waiting = new Map<string, ((result: ToolResult) => void)[]>();

  /**
   * The result of a call running in this process, once it ends — or `undefined` at `until`
   * (epoch ms) or when `signal` aborts, whichever comes first.
   */
  const resultOfRunning = (
    id: string,
    until: number,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult | undefined> =>
    new Promise((resolve) => {
      let done = false;
      const settle = (result: ToolResult | undefined): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
        resolve(result);
      };
      const stop = (): void => settle(undefined);
      const timer = setTimeout(stop, Math.max(0, until - Date.now()));
      if (signal?.aborted) return stop();
      signal?.addEventListener('abort', stop, { once: true });
      const list = waiting.get(id);
      if (list) list.push(settle);
      else waiting.set(id, [settle]);
    });

  /** A replay's answer from the first delivery's result. */
  const replayOf = (result: ToolResult, record: ExecutionRecord): ToolResult =>
    ({ ...result, replayed: true, execution_id: record.id }) as ToolResult;

  const recordOf = (call: CallToRecord, digest: string): ExecutionRecord => {
    const now = Date.now();
    const { context, grant } = call;
    const deadlineAt = now + call.timeoutMs + DEADLINE_MARGIN_MS;
    // Built field by field: this runs on every call.
    const record: Mutable<ExecutionRecord> = {
      id: nextId(),
      callId: recordedCallId(call.callId),
      callIdGiven: call.callIdGiven,
      toolName: call.tool.name,
      argsDigest: digest,
      accountId: context.accountId ?? '',
      userId: context.userId ?? '',
      sessionId: context.sessionId ?? '',
      status: 'started',
      attempt: 1,
      startedAt: now,
      deadlineAt,
      // A record outlives its call: a running one is never dropped as expired.
      expiresAt: Math.max(now + settings.retentionMs, deadlineAt + DEADLINE_MARGIN_MS),
    };
    if (context.invocationId !== undefined) record.invocationId = context.invocationId;
    if (settings.recordArguments) record.argumentsJson = recordedArguments(call.args);
    if (grant?.how === 'standing_grant') record.standingGrantId = grant.approvalId;
    else if (grant && grant.how !== 'policy') record.approvalId = grant.approvalId;
    return record;
  };

  /** The result a succeeded record kept, or `undefined`. */
  const keptResult = (record: ExecutionRecord, context: InvocationContext) =>
    readKeptResult(record, budget, context);

  /**
   * The answer to a call whose call id already has a record. A delivery that arrives while the
   * first runs is a duplicate: it waits and gets the first's result, failed or not. One that
   * arrives after the first failed is a retry (`'again'`: it runs).
   */
  const answerTo = async (
    call: CallToRecord,
    digest: string,
    found: ExecutionRecord,
  ): Promise<Begun | 'again'> => {
    let existing = found;
    if (existing.toolName !== call.tool.name || existing.argsDigest !== digest)
      return { answer: conflict(call, existing) };
    const waitUntil = Math.min(existing.deadlineAt, Date.now() + MAX_REPLAY_WAIT_MS);
    let waited = false;
    for (let pause = 25; outcomeOfRecord(existing, Date.now()) === 'running'; ) {
      if (Date.now() >= waitUntil || call.signal?.aborted)
        return { answer: unknownOutcome(call, existing, true) };
      waited = true;
      if (running.has(existing.id)) {
        const result = await resultOfRunning(existing.id, waitUntil, call.signal);
        if (result) return { answer: replayOf(result, existing) };
        continue;
      }
      await sleep(Math.min(pause, Math.max(1, waitUntil - Date.now())));
      pause = Math.min(pause * 2, 1_000);
      const again = await bounded(store.findCall({ ...scopeOf(existing), now: Date.now() }));
      if (!again) return 'again';
      existing = again;
    }
    const outcome = outcomeOfRecord(existing, Date.now());
    if (outcome === 'unknown') return { answer: unknownOutcome(call, existing, false) };
    if (outcome === 'failed' && !waited) return 'again';
    const result = await keptResult(existing, call.context);
    if (result) return { answer: replayOf(result, existing) };
    return {
      answer:
        outcome === 'succeeded' ? alreadyExecuted(call, existing) : firstFailed(call, existing),
    };
  };

  const created = (record: ExecutionRecord): Begun => {
    // Only a call the caller named can have a duplicate waiting on it.
    if (record.callIdGiven) running.add(record.id);
    return { record };
  };

  const tryBegin = (call: CallToRecord, digest: string, attempt: number): Awaitable<Begun> => {
    let begun: Awaitable<ExecutionBegin>;
    try {
      begun = bounded(store.begin(recordOf(call, digest)));
    } catch (error) {
      return { answer: storeFailure(error) };
    }
    const next = (outcome: ExecutionBegin): Awaitable<Begun> => {
      if (outcome.created) return created(outcome.record);
      return answerTo(call, digest, outcome.existing).then((answer) =>
        answer !== 'again'
          ? answer
          : attempt < 3
            ? tryBegin(call, digest, attempt + 1)
            : { answer: firstFailed(call, outcome.existing) },
      );
    };
    return isThenable(begun)
      ? (begun as Promise<ExecutionBegin>).then(next, (error: unknown) => ({
          answer: storeFailure(error),
        }))
      : next(begun as ExecutionBegin);
  };

  const finish = (
    record: ExecutionRecord,
    ended: ExecutionRecord | undefined,
    result: ToolResult,
  ): void => {
    if (record.callIdGiven) {
      running.delete(record.id);
      const waiters = waiting.get(record.id);
      if (waiters) {
        waiting.delete(record.id);
        for (const wake of waiters) wake(result);
      }
    }
    if (ended && settings.onExecution) {
      try {
        const returned: unknown = settings.onExecution(summaryOfRecord(ended, Date.now()));
        if (isThenable(returned))
          (returned as PromiseLike<unknown>).then(undefined, (error: unknown) =>
            reportHookError(error, 'onExecution'),
          );
      } catch (error) {
        reportHookError(error, 'onExecution');
      }
    }
  };

  const complete = (
    record: ExecutionRecord,
    end: ExecutionEnd,
    result: ToolResult,
  ): Awaitable<ToolResult> => {
    let ended: Awaitable<ExecutionRecord | undefined>;
    try {
      ended = bounded(store.complete(record.id, end));
    } catch (error) {
      reportHookError(error, 'executionStore');
      finish(record, undefined, result);
      return result;
    }
    if (!isThenable(ended)) {
      finish(record, ended as ExecutionRecord | undefined, result);
      return result;
    }
    return (ended as Promise<ExecutionRecord | undefined>).then(
      (done) => {
        finish(record, done, result);
        return result;
      },
      (error: unknown) => {
        // The tool ran: its result goes to the model; the record stays started (later: unknown).
        reportHookError(error, 'executionStore');
        finish(record, undefined, result);
        return result;
      },
    );
  };

  return {
    begin(call) {
      return tryBegin(call, canonicalDigest(call.args), 1);
    },

    end(record, call, result) {
      const status = statusOf(result);
      const base: Mutable<ExecutionEnd> = { status, endedAt: Date.now() };
      if (status !== 'succeeded') base.errorType = String(result['error_type'] ?? '');
      // Only a call the caller named can be replayed: only its result is worth keeping (a failed
      // one too, for the duplicates that waited on it).
      if (status === 'unknown' || !record.callIdGiven) return complete(record, base, result);
      const json = JSON.stringify(result);
      if (settings.results === 'inline' && json.length <= MAX_INLINE_RESULT_CHARS) {
        base.resultJson = json;
        return complete(record, base, result);
      }
      return persistToStore(
        Buffer.from(json, 'utf8'),
        resultStem(record.callId, 'result'),
        'json',
        budget,
        call.context,
      ).then(
        (resultHandle) => complete(record, { ...base, resultHandle }, result),
        (error: unknown) => {
          reportHookError(error, 'executionStore');
          return complete(record, base, result);
        },
      );
    },

    async replayOfUsedApproval(call) {
      if (!call.callIdGiven) return undefined;
      const found = await bounded(
        store.findCall({
          ...scopeOf({ ...call.context, callId: recordedCallId(call.callId) }),
          now: Date.now(),
        }),
      );
      if (!found) return undefined;
      const answer = await answerTo(call, canonicalDigest(call.args), found);
      return answer !== 'again' && 'answer' in answer ? answer.answer : undefined;
    },
  };
}

/**
 * The arguments as a record keeps them: their JSON with secrets redacted, or — past
 * {@link MAX_RECORDED_ARGUMENTS_CHARS} — a JSON string of its first characters.
 */
function recordedArguments(args: Record<string, unknown>): string {
  const json = JSON.stringify(redactDeep(args));
  return json.length <= MAX_RECORDED_ARGUMENTS_CHARS
    ? json
    : JSON.stringify(`${json.slice(0, MAX_RECORDED_ARGUMENTS_CHARS)}…`);
}

/** The account, session and call id a record is found by. */
function scopeOf(of: {
  readonly accountId?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly callId: string;
}): { accountId: string; sessionId: string; callId: string } {
  return { accountId: of.accountId ?? '', sessionId: of.sessionId ?? '', callId: of.callId };
}
