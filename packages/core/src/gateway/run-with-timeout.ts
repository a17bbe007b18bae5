import { KsadkError } from '../errors/ksadk-error.js';
import { type AskHuman, isInputRequired } from '../tool/human-input.js';
import { outcomeMayBeUnknown } from '../tool/policy.js';
import type { Tool, ToolExecutionContext } from '../tool/tool.js';
import { isThenable } from '../util/thenable.js';
import {
  abortedResult,
  failedResult,
  gatewayFailure,
  outcomeUnknownResult,
  type ToolErrorResult,
} from './results.js';

const TIMEOUT = Symbol('timeout');
const ABORTED = Symbol('aborted');

/** What a tool's `execute` produced, before it is shaped into a result. */
export type RawOutcome = { readonly value: unknown } | { readonly failure: ToolErrorResult };

/** The execution context without the signal, which {@link runWithTimeout} supplies. */
export type ExecutionBase = Omit<
  ToolExecutionContext,
  'signal' | 'reportProgress' | 'askHuman' | 'credential'
> & {
  /** Where progress reports go (the caller's `onProgress`). */
  readonly onProgress?: ((event: ToolProgressEvent) => void) | undefined;
  /** The adapter's way to ask the human (none: every question is declined). */
  readonly askHuman?: AskHuman | undefined;
  /** The call's credentials, when its tool declares any. */
  readonly credential?: ToolExecutionContext['credential'] | undefined;
  /** Told when `execute` starts, with its settling (the caller's `onExecution`). */
  readonly onExecution?: ((settled: Promise<void>) => void) | undefined;
};

const ignore = (): void => undefined;

/** Hands the caller the tool's settling; a listener that throws changes nothing. */
function reportExecution(base: ExecutionBase, pending: unknown): void {
  if (!base.onExecution) return;
  try {
    base.onExecution(
      isThenable(pending) ? Promise.resolve(pending).then(ignore, ignore) : Promise.resolve(),
    );
  } catch {
    // The call goes on.
  }
}

/** `credential` of a tool that declares none (one shared function: no closure per call). */
const noCredentials: ToolExecutionContext['credential'] = (id) =>
  Promise.reject(
    new KsadkError(
      'invalid_tool',
      `This tool asked for credential "${String(id).slice(0, 64)}" but declares no credentials.`,
    ),
  );

/** A call's progress as the host receives it. */
export interface ToolProgressEvent {
  readonly toolName: string;
  readonly callId: string;
  readonly progress: number;
  readonly total: number | undefined;
  readonly message: string | undefined;
}

/** How far progress may stretch a call: this many times its timeout in all. */
const MAX_TIMEOUT_RESETS_FACTOR = 10;

/** How one call stops: why (first reason wins), its signal's controller and its timer's restart. */
interface CallStop {
  reason: unknown;
  /** Made only when the tool looks at its signal (an AbortController costs µs and garbage). */
  controller: AbortController | undefined;
  restartTimer: (() => void) | undefined;
}

/** The call's controller, made on first use; aborted at creation when the call already stopped. */
function controllerOf(state: CallStop): AbortController {
  if (!state.controller) {
    state.controller = new AbortController();
    if (state.reason !== undefined) state.controller.abort(state.reason);
  }
  return state.controller;
}

function stop(state: CallStop, reason: unknown): void {
  state.reason ??= reason;
  state.controller?.abort(reason);
}

/** Where a context keeps its call's stop state (a symbol, not `#private`: a Proxy or an
 * `Object.create` child of the context can still read `signal`). */
const CALL_STOP = Symbol('callStop');

/**
 * What a tool's `execute` gets: the call's identity, signal, human input and progress reports.
 * A class, so `signal` is a getter on its prototype (an accessor in an object literal costs
 * about 0.4 µs per call); `askHuman` and `reportProgress` are own functions, safe to pass on.
 */
class CallExecutionContext implements ToolExecutionContext {
  readonly toolName: string;
  readonly callId: string;
  readonly invocation: ToolExecutionContext['invocation'];
  readonly gateway: ToolExecutionContext['gateway'];
  readonly approval: ToolExecutionContext['approval'];
  readonly askHuman: ToolExecutionContext['askHuman'];
  readonly reportProgress: ToolExecutionContext['reportProgress'];
  readonly credential: ToolExecutionContext['credential'];
  readonly [CALL_STOP]: CallStop;

  constructor(base: ExecutionBase, state: CallStop, startedAt: number, timeoutMs: number) {
    this.toolName = base.toolName;
    this.callId = base.callId;
    this.invocation = base.invocation;
    this.gateway = base.gateway;
    this.approval = base.approval;
    this.credential = base.credential ?? noCredentials;
    this[CALL_STOP] = state;
    const { onProgress, askHuman } = base;
    this.askHuman = async (request) => {
      if (!askHuman) return { action: 'decline' };
      return askHuman(request);
    };
    this.reportProgress = (progress) => {
      if (typeof progress?.progress !== 'number' || !Number.isFinite(progress.progress)) return;
      if (progress.resetTimeout && Date.now() - startedAt < timeoutMs * MAX_TIMEOUT_RESETS_FACTOR)
        state.restartTimer?.();
      if (!onProgress) return;
      try {
        onProgress({
          toolName: base.toolName,
          callId: base.callId,
          progress: progress.progress,
          total: typeof progress.total === 'number' ? progress.total : undefined,
          message:
            typeof progress.message === 'string' ? progress.message.slice(0, 500) : undefined,
        });
      } catch {
        // A progress listener that throws changes nothing about the call.
      }
    };
  }

  get signal(): AbortSignal {
    return controllerOf(this[CALL_STOP]).signal;
  }
}

/**
 * Runs a tool's `execute` with a timeout and the caller's abort signal. Synchronous tools that
 * never look at their signal pay for no controller, listener, timer or promise: their outcome
 * comes back as is. A returned promise never rejects; a value that throws when inspected (a
hostile getter) can throw, and the gateway turns that into the call's failure.
 */
export function runWithTimeout(
  tool: Tool,
  args: Record<string, unknown>,
  base: ExecutionBase,
  outer: AbortSignal | undefined,
  timeoutMs: number,
): RawOutcome | Promise<RawOutcome> {
  if (outer?.aborted) return { failure: abortedResult(tool) };
  const state: CallStop = { reason: undefined, controller: undefined, restartTimer: undefined };
  const startedAt = Date.now();
  let pending: unknown;
  try {
    pending = (
      tool.execute as (input: Record<string, unknown>, ctx: ToolExecutionContext) => unknown
    )(args, new CallExecutionContext(base, state, startedAt, timeoutMs));
  } catch (error) {
    reportExecution(base, undefined);
    return { failure: failedResult(error) };
  }
  reportExecution(base, pending);
  if (!isThenable(pending)) {
    if (isInputRequired(pending)) stop(state, new Error('paused for the user'));
    return { value: pending };
  }
  return raceDeadline(tool, pending, state, outer, startedAt, timeoutMs);
}

/** A call cancelled while it ran: unknown when the tool may have changed something. */
const stoppedResult = (tool: Tool): ToolErrorResult =>
  outcomeMayBeUnknown(tool.policy) ? outcomeUnknownResult(tool) : abortedResult(tool);

/** An asynchronous tool's outcome, raced against its deadline and the caller's abort. */
async function raceDeadline(
  tool: Tool,
  pending: PromiseLike<unknown>,
  state: CallStop,
  outer: AbortSignal | undefined,
  startedAt: number,
  timeoutMs: number,
): Promise<RawOutcome> {
  let timer: NodeJS.Timeout | undefined;
  let forwardAbort: (() => void) | undefined;
  try {
    const stopped = new Promise<typeof TIMEOUT | typeof ABORTED>((resolve) => {
      forwardAbort = (): void => {
        resolve(ABORTED);
        stop(state, outer?.reason ?? new Error('aborted'));
      };
      // The caller may have aborted while the tool's first (synchronous) step ran.
      if (outer?.aborted) forwardAbort();
      else outer?.addEventListener('abort', forwardAbort, { once: true });
      const expire = (): void => {
        resolve(TIMEOUT);
        stop(state, new Error('timeout'));
      };
      const total = timeoutMs * MAX_TIMEOUT_RESETS_FACTOR;
      state.restartTimer = () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(
          expire,
          Math.min(timeoutMs, Math.max(0, startedAt + total - Date.now())),
        );
      };
      timer = setTimeout(expire, timeoutMs);
    });
    const value = await Promise.race([pending, stopped]);
    // A call that stopped to ask the human is over: whatever it left running stops now.
    if (isInputRequired(value)) stop(state, new Error('paused for the user'));
    if (value === TIMEOUT) {
      return {
        failure: gatewayFailure(
          'tool_timeout',
          `${tool.name} did not finish within ${timeoutMs} ms and was stopped.`,
        ),
      };
    }
    if (value === ABORTED) return { failure: stoppedResult(tool) };
    return { value };
  } catch (error) {
    return { failure: state.reason !== undefined ? stoppedResult(tool) : failedResult(error) };
  } finally {
    state.restartTimer = undefined;
    if (timer) clearTimeout(timer);
    if (forwardAbort) outer?.removeEventListener('abort', forwardAbort);
  }
}
