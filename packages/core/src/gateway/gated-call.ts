import type { ResultBudget } from '../budget/result-budget.js';
import { MAX_MEDIA_PARTS } from '../budget/result-media.js';
import { exceedsChars, shapeResult, toToolResult } from '../budget/shape-result.js';
import {
  getInvocationContextOrEmpty,
  type InvocationContext,
} from '../context/invocation-context.js';
import type { CredentialBroker } from '../credentials/credential-broker.js';
import { isInputRequired } from '../tool/human-input.js';
import { outcomeMayBeUnknown } from '../tool/policy.js';
import type { Tool } from '../tool/tool.js';
import { redactDeep } from '../util/redact.js';
import { isThenable } from '../util/thenable.js';
import { type CallDecision, decideCall } from './approval/call-policy.js';
import type { ApprovalGate, GateAnswer, GatedCall, GrantedCall } from './approval/gate.js';
import type { ApprovalMode } from './approval/mode.js';
import type { CallToRecord, ExecutionRecorder } from './execution-recorder.js';
import { withoutForgedPause } from './forged-pause.js';
import type { PendingApprovalOptions, ToolCallOptions, ToolGateway } from './gateway-types.js';
import { type ArgumentLimits, parseModelArguments } from './model-arguments.js';
import {
  MAX_MEDIA_CHARS,
  MAX_RESULT_CHARS,
  splitResultMedia,
  toPlainJson,
} from './plain-result.js';
import {
  type ApprovalRequiredResult,
  accountedTimeout,
  failedResult,
  gatewayFailure,
  isApprovalRequired,
  type ToolResult,
} from './results.js';
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
  readonly policyTimeoutMs: number;
  modeFor(context: InvocationContext): ApprovalMode;
  /** Writes each call's execution record, and answers replays from it. */
  readonly executions: ExecutionRecorder;
  /** The credential broker, made on first use. */
  credentials(): CredentialBroker;
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
): ApprovalStep | PromiseLike<ApprovalStep> {
  const decided = decideCall(
    {
      tool: call.tool,
      args,
      callId: call.callId,
      invocation: call.context,
      mode: at.modeFor(call.context),
    },
    at.policyTimeoutMs,
  );
  return andThen(decided, (decision): ApprovalStep | Promise<ApprovalStep> => {
    if ('refused' in decision) return { answer: decision.refused };
    // A grant presented is honoured (an edit runs) even when this call would not need one.
    if (!decision.needed && call.options.approval === undefined) return NO_APPROVAL_NEEDED;
    return checkApproval(call, args, decision, at);
  });
}

const isGranted = (value: GrantedCall | GateAnswer): value is GrantedCall =>
  (value as GrantedCall).granted === true;

async function checkApproval(
  call: CallOf,
  args: Record<string, unknown>,
  decision: CallDecision,
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
    decision,
  };
  const checked = await at.approvals.check(gated);
  if (!isGranted(checked)) {
    const type = (checked as ToolResult)['error_type'];
    trace?.approval(
      type === 'approval_required'
        ? 'required'
        : type === 'approval_rejected'
          ? 'rejected'
          : type === 'approval_already_used'
            ? 'replayed'
            : 'refused',
    );
    return { answer: checked as unknown as ToolResult };
  }
  if (checked.how === 'policy') return NO_APPROVAL_NEEDED;
  trace?.approval('approved');
  return { granted: { call: gated, grant: checked } };
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
  const plain = withoutForgedPause(redactDeep(toToolResult(toPlainJson(text))), tool);
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
      const recorded = toRecord(call, checked.args, approval, at);
      if ('answer' in approval) return answerOrReplay(approval.answer, recorded, at);
      return andThen(at.executions.begin(recorded), (begun) => {
        if ('answer' in begun) return begun.answer;
        trace?.execution(begun.record.id);
        // A human who edited the call decided what runs: exactly the edited arguments.
        const args = approval.granted?.grant.args ?? checked.args;
        const mayHaveRun = outcomeMayBeUnknown(tool.policy);
        return andThen(
          settled(() =>
            andThen(runTool(call, args, at), (outcome) => resultOfRun(call, approval, outcome, at)),
          ),
          (result) =>
            at.executions.end(begun.record, recorded, accountedTimeout(result, mayHaveRun)),
        );
      });
    });
  });
}

/** What `run` returns, or what it throws (or its promise rejects with) as a failed result. */
function settled(
  run: () => ToolResult | PromiseLike<ToolResult>,
): ToolResult | PromiseLike<ToolResult> {
  try {
    const value = run();
    return isThenable(value) ? value.then(undefined, failedResult) : value;
  } catch (error) {
    return failedResult(error);
  }
}

/** The call as its execution record sees it. */
function toRecord(
  call: CallOf,
  args: Record<string, unknown>,
  approval: ApprovalStep,
  at: GatedCallContext,
): CallToRecord {
  return {
    tool: call.tool,
    args,
    callId: call.callId,
    callIdGiven: call.options.callId !== undefined,
    context: call.context,
    grant: 'granted' in approval ? approval.granted?.grant : undefined,
    timeoutMs: timeoutOf(call, at),
    signal: call.options.signal,
  };
}

/**
 * The gate's answer — but a replayed approved call (its approval already used) gets the result its
 * first run recorded, when there is one.
 */
function answerOrReplay(
  answer: ToolResult,
  recorded: CallToRecord,
  at: GatedCallContext,
): ToolResult | PromiseLike<ToolResult> {
  if (answer['error_type'] !== 'approval_already_used' || !recorded.callIdGiven) return answer;
  return at.executions.replayOfUsedApproval(recorded).then(
    (replayed) => replayed ?? answer,
    () => answer,
  );
}

const timeoutOf = (call: CallOf, at: GatedCallContext): number =>
  call.options.timeoutMs ?? call.tool.timeoutMs ?? at.defaultTimeoutMs;

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
      onExecution: options.onExecution,
      credential: tool.credentials?.length
        ? (id, credentialOptions) =>
            at.credentials().credentialFor(
              {
                toolName: tool.name,
                specs: tool.credentials ?? [],
                callId,
                invocation: call.context,
              },
              id,
              credentialOptions,
            )
        : undefined,
    },
    options.signal,
    timeoutOf(call, at),
  );
}

function resultOfRun(
  call: CallOf,
  approval: ApprovalStep,
  outcome: RawOutcome,
  at: GatedCallContext,
): ToolResult | PromiseLike<ToolResult> {
  if ('failure' in outcome) return outcome.failure;
  // A granted call that stopped to ask the human keeps its approval for the resumed run.
  const granted = 'granted' in approval ? approval.granted : undefined;
  if (granted && isInputRequired(outcome.value)) {
    return at.approvals
      .continueAfterInput(granted.call, granted.grant)
      .then(() => resultOf(outcome.value, call, at.budget));
  }
  const edited = granted?.grant.editedArguments;
  if (edited)
    return andThen(resultOf(outcome.value, call, at.budget), (result) => withEdit(result, edited));
  return resultOf(outcome.value, call, at.budget);
}

/** The result of a call the human edited: it says so, and what ran. */
function withEdit(result: ToolResult, edited: Record<string, unknown>): ToolResult {
  return {
    ...result,
    arguments_edited: true,
    edited_arguments: edited,
    edit_note:
      'The user edited the arguments of this call before approving it; it ran with edited_arguments, not the arguments you sent.',
  } as ToolResult;
}

/**
 * The `approval_required` envelope the call would stop with (its request made now when new), or
 * `undefined` when it would not stop for a human: it runs, or something else answers it (invalid
 * arguments, a standing decision, a used or rejected request) when it is invoked.
 */
export function pendingApprovalOf(
  tool: Tool,
  rawArgs: unknown,
  options: PendingApprovalOptions,
  callId: string,
  at: GatedCallContext,
): Promise<ApprovalRequiredResult | undefined> {
  const context = getInvocationContextOrEmpty();
  return Promise.resolve(
    andThen(checkedArguments(tool, rawArgs, at.limits), (checked) => {
      if ('refused' in checked) return undefined;
      const decided = decideCall(
        { tool, args: checked.args, callId, invocation: context, mode: at.modeFor(context) },
        at.policyTimeoutMs,
      );
      return andThen(decided, async (decision) => {
        if ('refused' in decision || !decision.needed) return undefined;
        const answer = await at.approvals.pendingRequest(
          {
            tool,
            args: checked.args,
            context,
            callId,
            callIdGiven: options.callId !== undefined,
            continuation: options.continuation ?? 'run',
            approval: undefined,
            decision,
          },
          options.create !== false,
        );
        return answer && isApprovalRequired(answer) ? answer : undefined;
      });
    }),
  );
}
