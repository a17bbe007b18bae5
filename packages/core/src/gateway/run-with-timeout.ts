import { type AskHuman, isInputRequired } from '../tool/human-input.js';
import type { Tool, ToolExecutionContext } from '../tool/tool.js';
import { abortedResult, failedResult, gatewayFailure, type ToolErrorResult } from './results.js';

const TIMEOUT = Symbol('timeout');
const ABORTED = Symbol('aborted');

/** What a tool's `execute` produced, before it is shaped into a result. */
export type RawOutcome = { readonly value: unknown } | { readonly failure: ToolErrorResult };

/** The execution context without the signal, which {@link runWithTimeout} supplies. */
export type ExecutionBase = Omit<ToolExecutionContext, 'signal' | 'reportProgress' | 'askHuman'> & {
  /** Where progress reports go (the caller's `onProgress`). */
  readonly onProgress?: ((event: ToolProgressEvent) => void) | undefined;
  /** The adapter's way to ask the human (none: every question is declined). */
  readonly askHuman?: AskHuman | undefined;
};

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

/**
 * Runs a tool's `execute` with a timeout and the caller's abort signal. Synchronous tools that
 * never look at their signal pay for no controller, listener or timer. Never throws.
 */
export async function runWithTimeout(
  tool: Tool,
  args: Record<string, unknown>,
  base: ExecutionBase,
  outer: AbortSignal | undefined,
  timeoutMs: number,
): Promise<RawOutcome> {
  if (outer?.aborted) return { failure: abortedResult(tool) };
  // Made only when the tool looks at its signal (an AbortController costs a few µs and some
  // garbage); aborted at creation when the call has already stopped.
  let controller: AbortController | undefined;
  let stoppedBecause: unknown;
  const controllerOf = (): AbortController => {
    if (!controller) {
      controller = new AbortController();
      if (stoppedBecause !== undefined) controller.abort(stoppedBecause);
    }
    return controller;
  };
  const stop = (reason: unknown): void => {
    stoppedBecause ??= reason;
    controller?.abort(reason);
  };
  const { onProgress, askHuman } = base;
  const startedAt = Date.now();
  let restartTimer: (() => void) | undefined;
  // Fields named one by one (a rest pattern and a spread cost microseconds on every call).
  const executionContext: ToolExecutionContext = {
    toolName: base.toolName,
    callId: base.callId,
    invocation: base.invocation,
    gateway: base.gateway,
    approval: base.approval,
    get signal() {
      return controllerOf().signal;
    },
    async askHuman(request) {
      if (!askHuman) return { action: 'decline' };
      return askHuman(request);
    },
    reportProgress(progress) {
      if (typeof progress?.progress !== 'number' || !Number.isFinite(progress.progress)) return;
      if (progress.resetTimeout && Date.now() - startedAt < timeoutMs * MAX_TIMEOUT_RESETS_FACTOR)
        restartTimer?.();
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
    },
  };
  let pending: unknown;
  try {
    pending = (
      tool.execute as (input: Record<string, unknown>, ctx: ToolExecutionContext) => unknown
    )(args, executionContext);
  } catch (error) {
    return { failure: failedResult(error) };
  }
  if (
    !(pending instanceof Promise) &&
    !(typeof pending === 'object' && pending !== null && 'then' in pending)
  ) {
    if (isInputRequired(pending)) stop(new Error('paused for the user'));
    return { value: pending };
  }
  let timer: NodeJS.Timeout | undefined;
  let forwardAbort: (() => void) | undefined;
  try {
    const stopped = new Promise<typeof TIMEOUT | typeof ABORTED>((resolve) => {
      forwardAbort = (): void => {
        resolve(ABORTED);
        stop(outer?.reason ?? new Error('aborted'));
      };
      // The caller may have aborted while the tool's first (synchronous) step ran.
      if (outer?.aborted) forwardAbort();
      else outer?.addEventListener('abort', forwardAbort, { once: true });
      const expire = (): void => {
        resolve(TIMEOUT);
        stop(new Error('timeout'));
      };
      const total = timeoutMs * MAX_TIMEOUT_RESETS_FACTOR;
      restartTimer = () => {
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
    if (isInputRequired(value)) stop(new Error('paused for the user'));
    if (value === TIMEOUT) {
      return {
        failure: gatewayFailure(
          'tool_timeout',
          `${tool.name} did not finish within ${timeoutMs} ms and was stopped.`,
        ),
      };
    }
    if (value === ABORTED) return { failure: abortedResult(tool) };
    return { value };
  } catch (error) {
    return { failure: stoppedBecause !== undefined ? abortedResult(tool) : failedResult(error) };
  } finally {
    restartTimer = undefined;
    if (timer) clearTimeout(timer);
    if (forwardAbort) outer?.removeEventListener('abort', forwardAbort);
  }
}
