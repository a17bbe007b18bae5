import type { ResultBudget } from '../budget/result-budget.js';
import { MAX_MEDIA_PARTS } from '../budget/result-media.js';
import { exceedsChars, shapeResult, toToolResult } from '../budget/shape-result.js';
import {
  getInvocationContextOrEmpty,
  type InvocationContext,
} from '../context/invocation-context.js';
import { isInputRequired } from '../tool/human-input.js';
import type { Tool } from '../tool/tool.js';
import { redactDeep } from '../util/redact.js';
import { isThenable } from '../util/thenable.js';
import type { ApprovalGate, GatedCall, GrantedCall } from './approval/gate.js';
import type { ApprovalMode } from './approval/mode.js';
import { policyRequiresApproval } from './approval/policy.js';
import type { ToolCallOptions, ToolGateway } from './gateway-types.js';
import { type ArgumentLimits, parseModelArguments } from './model-arguments.js';
import {
  MAX_MEDIA_CHARS,
  MAX_RESULT_CHARS,
  splitResultMedia,
  toPlainJson,
} from './plain-result.js';
import { failedResult, gatewayFailure, type ToolResult } from './results.js';
import { type RawOutcome, runWithTimeout } from './run-with-timeout.js';
import type { ToolCallTrace } from './tool-tracing.js';
import { validateToolInput } from './validate-input.js';

/** What one gated call needs from its gateway. */
export interface GatedCallContext {
  readonly gateway: ToolGateway;
  readonly approvals: ApprovalGate;
  readonly limits: ArgumentLimits;
  readonly budget: ResultBudget;
  readonly defaultTimeoutMs: number;
  modeFor(context: InvocationContext): ApprovalMode;
}

/** One call of a gated run. */
interface CallOf {
  readonly tool: Tool;
  readonly options: ToolCallOptions;
  readonly callId: string;
  readonly trace: ToolCallTrace | undefined;
  readonly context: InvocationContext;
}

/**
 * `next(value)`, waiting for `value` only when it is a promise (any thenable): a call whose steps
 * are all synchronous (a zod tool, no approval) makes few promises along the way.
 */
function andThen<T, U>(
  value: T | PromiseLike<T>,
  next: (settled: T) => U | PromiseLike<U>,
): U | PromiseLike<U> {
  return isThenable(value) ? (value as PromiseLike<T>).then(next) : next(value as T);
}

type CheckedArguments = { args: Record<string, unknown> } | { refused: ToolResult };

/** The model's arguments parsed, bounded and validated against the tool's schema; or why not. */
function checkedArguments(
  tool: Tool,
  rawArgs: unknown,
  limits: ArgumentLimits,
): CheckedArguments | PromiseLike<CheckedArguments> {
  const parsed = parseModelArguments(rawArgs, limits);
  if (!parsed.ok) {
    return {
      refused: gatewayFailure(
        'invalid_arguments',
        `Invalid arguments for ${tool.name}: ${parsed.message}`,
        { issues: parsed.issues },
      ),
    };
  }
  return andThen(validateToolInput(tool, parsed.args), (validation): CheckedArguments => {
    if (validation.ok) return { args: validation.value };
    const first = validation.issues[0];
    return {
      refused: gatewayFailure(
        'invalid_arguments',
        `Invalid arguments for ${tool.name}${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : '.'}`,
        { issues: validation.issues },
      ),
    };
  });
}

type ApprovalStep = { granted?: { call: GatedCall; grant: GrantedCall } } | { answer: ToolResult };
const NO_APPROVAL_NEEDED: ApprovalStep = Object.freeze({});

/**
 * The approval step: nothing to do when the tool's policy needs no approval in this mode, the
 * consumed grant when one was presented, or the envelope to answer instead of running.
 */
function approvalOf(
  call: CallOf,
  args: Record<string, unknown>,
  at: GatedCallContext,
): ApprovalStep | Promise<ApprovalStep> {
  if (!policyRequiresApproval(call.tool.policy, at.modeFor(call.context)))
    return NO_APPROVAL_NEEDED;
  return checkApproval(call, args, at);
}

async function checkApproval(
  call: CallOf,
  args: Record<string, unknown>,
  at: GatedCallContext,
): Promise<ApprovalStep> {
  const { tool, options, trace, context } = call;
  const gated: GatedCall = {
    tool,
    args,
    context,
    callId: call.callId,
    callIdGiven: options.callId !== undefined,
    continuation: options.continuation ?? 'run',
    approval: options.approval,
  };
  const decision = await at.approvals.check(gated);
  if (!('granted' in decision)) {
    trace?.approval(
      decision.error_type === 'approval_required'
        ? 'required'
        : decision.error_type === 'approval_rejected'
          ? 'rejected'
          : 'replayed',
    );
    return { answer: decision as unknown as ToolResult };
  }
  trace?.approval('approved');
  return { granted: { call: gated, grant: decision } };
}

/**
 * What a tool returned, as the model gets it: refused when too large, then plain data, then
 * redaction, then budgeting — previews and saved files never hold a credential, and a cut can
 * never split one. Media is checked part by part when it is saved.
 */
function resultOf(
  value: unknown,
  call: CallOf,
  budget: ResultBudget,
): Promise<ToolResult> | ToolResult {
  const { tool, callId, context } = call;
  if (value instanceof Error) return failedResult(value);
  const { text, media } = splitResultMedia(value);
  if (
    exceedsChars(text, MAX_RESULT_CHARS) ||
    (media !== undefined && exceedsChars(media.slice(0, MAX_MEDIA_PARTS), MAX_MEDIA_CHARS))
  ) {
    return gatewayFailure(
      'result_too_large',
      `${tool.name} returned more than ${MAX_RESULT_CHARS} characters of data (or ${MAX_MEDIA_CHARS} of media); nothing of it was kept.`,
    );
  }
  const plain = redactDeep(toToolResult(toPlainJson(text)));
  return shapeResult(plain, { tool, callId, context }, budget, media);
}

/** One call through the gateway: arguments checked, approval gated, the tool run, its result shaped. */
export function runGatedCall(
  tool: Tool,
  rawArgs: unknown,
  options: ToolCallOptions,
  callId: string,
  trace: ToolCallTrace | undefined,
  at: GatedCallContext,
): ToolResult | PromiseLike<ToolResult> {
  const call: CallOf = { tool, options, callId, trace, context: getInvocationContextOrEmpty() };
  return andThen(checkedArguments(tool, rawArgs, at.limits), (checked) => {
    if ('refused' in checked) return checked.refused;
    trace?.arguments(checked.args);
    return andThen(approvalOf(call, checked.args, at), (approval) => {
      if ('answer' in approval) return approval.answer;
      return andThen(runTool(call, checked.args, at), (outcome) =>
        resultOfRun(call, approval, outcome, at),
      );
    });
  });
}

/** The tool itself, under its timeout and the caller's signal. */
function runTool(
  call: CallOf,
  args: Record<string, unknown>,
  at: GatedCallContext,
): RawOutcome | Promise<RawOutcome> {
  const { tool, options, callId } = call;
  return runWithTimeout(
    tool,
    args,
    {
      toolName: tool.name,
      callId,
      invocation: call.context,
      gateway: at.gateway,
      approval: options.approval,
      onProgress: options.onProgress,
      askHuman: options.askHuman,
    },
    options.signal,
    options.timeoutMs ?? tool.timeoutMs ?? at.defaultTimeoutMs,
  );
}

function resultOfRun(
  call: CallOf,
  approval: ApprovalStep,
  outcome: RawOutcome,
  at: GatedCallContext,
): ToolResult | Promise<ToolResult> {
  if ('failure' in outcome) return outcome.failure;
  // A granted call that stopped to ask the human keeps its approval for the resumed run.
  const granted = 'granted' in approval ? approval.granted : undefined;
  if (granted && isInputRequired(outcome.value)) {
    return at.approvals
      .continueAfterInput(granted.call, granted.grant)
      .then(() => resultOf(outcome.value, call, at.budget));
  }
  return resultOf(outcome.value, call, at.budget);
}
