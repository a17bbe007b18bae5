import { randomUUID } from 'node:crypto';
import { resolveResultBudget } from '../budget/result-budget.js';
import { MAX_MEDIA_PARTS } from '../budget/result-media.js';
import { exceedsChars, shapeResult, toToolResult } from '../budget/shape-result.js';
import {
  getInvocationContextOrEmpty,
  type InvocationContext,
} from '../context/invocation-context.js';
import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { isInputRequired } from '../tool/human-input.js';
import type { Tool } from '../tool/tool.js';
import { isVettedMedia, TOOL_MEDIA_FIELD } from '../tool/tool-media.js';
import { redactDeep, registerEnvSecrets } from '../util/redact.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { createApprovalGate, type GatedCall, type GrantedCall } from './approval/gate.js';
import { resolveApprovalKeys } from './approval/grant.js';
import { type ApprovalMode, approvalModeFromEnv, parseApprovalMode } from './approval/mode.js';
import { policyRequiresApproval } from './approval/policy.js';
import { createInMemoryApprovalStore } from './approval/store.js';
import { APPROVAL_STORE_ENV, approvalStoreChoice } from './approval/store-from-env.js';
import type {
  ToolCallOptions,
  ToolCallOutcome,
  ToolGateway,
  ToolGatewayOptions,
} from './gateway-types.js';
import {
  type ArgumentLimits,
  DEFAULT_ARGUMENT_LIMITS,
  parseModelArguments,
} from './model-arguments.js';
import {
  MAX_MEDIA_CHARS,
  MAX_RESULT_CHARS,
  splitResultMedia,
  toPlainJson,
} from './plain-result.js';
import type { ToolResult } from './results.js';
import { failedResult, runWithTimeout } from './run-with-timeout.js';
import { createToolTracer, type ToolCallTrace } from './tool-tracing.js';
import { validateToolInput } from './validate-input.js';

export type {
  ApprovalDecisionOptions,
  ApprovalPrincipal,
  ToolCallOptions,
  ToolCallOutcome,
  ToolEndEvent,
  ToolGateway,
  ToolGatewayHooks,
  ToolGatewayOptions,
  ToolStartEvent,
} from './gateway-types.js';

const DEFAULT_TTL_MS = 15 * 60 * 1000;
const DEFAULT_TIMEOUT_MS = 120_000;
// Generated call ids: a random per-process prefix and a counter (unique, and cheap on the hot path).
const CALL_ID_PREFIX = `call_${randomUUID().slice(0, 8)}`;
let callCounter = 0;
const nextCallId = (): string => {
  callCounter += 1;
  return `${CALL_ID_PREFIX}_${callCounter.toString(36)}`;
};

function outcomeOf(result: ToolResult): ToolCallOutcome {
  if (result.ok) return 'ok';
  switch (result['error_type']) {
    case 'invalid_arguments':
    case 'approval_required':
    case 'approval_rejected':
    case 'approval_already_used':
      return result['error_type'];
    case 'tool_timeout':
      return 'timeout';
    case 'tool_aborted':
      return 'aborted';
    default:
      return 'error';
  }
}

function argumentLimitsOf(given: Partial<ArgumentLimits> | undefined): ArgumentLimits {
  const limits = { ...DEFAULT_ARGUMENT_LIMITS, ...given };
  if (!(limits.maxChars > 0) || !(limits.maxDepth > 0)) {
    throw new KsadkError('invalid_config', 'argumentLimits must be positive numbers.');
  }
  return limits;
}

const GATEWAY_OPTIONS = [
  'approvalMode',
  'approvalStore',
  'approvalSecret',
  'approvalPreviousSecrets',
  'approvalTtlMs',
  'timeoutMs',
  'budget',
  'argumentLimits',
  'hooks',
  'tracing',
  'env',
] as const;

/** The version recorded as the tracer's instrumentation version. */
const INSTRUMENTATION_VERSION = '0.1.0';

/**
 * Redacts a result everywhere but the data of the media parts the gateway checked: rewriting
 * base64 would only corrupt the image the model gets, and a part that held a registered
 * credential was withheld when it was checked. Their other fields (the handle) are redacted like
 * the rest; any other part is redacted whole.
 */
function redactOutsideMedia(result: ToolResult): ToolResult {
  const media = (result as Record<string, unknown>)[TOOL_MEDIA_FIELD];
  if (!Array.isArray(media)) return redactDeep(result);
  const { [TOOL_MEDIA_FIELD]: _media, ...rest } = result as Record<string, unknown>;
  const parts = media.map((part: unknown) => {
    if (!isVettedMedia(part)) return redactDeep(part);
    const { data, ...fields } = part as Record<string, unknown>;
    const safe = redactDeep(fields);
    return safe === fields ? part : { ...safe, data };
  });
  return { ...redactDeep(rest), [TOOL_MEDIA_FIELD]: parts } as unknown as ToolResult;
}

/**
 * Creates the tool gateway: the one door through which every tool call reaches a tool.
 *
 * @throws {KsadkError} `invalid_config` for an unknown approval mode (option or
 * `KSADK_TOOL_APPROVAL_MODE`), a short secret, a bad budget or bad limits.
 *
 * @example
 * ```ts
 * const gateway = createToolGateway();
 * const first = await gateway.invoke(writeNote, { title: 'a', body: 'b' });
 * if (isApprovalRequired(first)) {
 *   const grant = await gateway.approve(first.approval_request.id); // the host decides
 *   const done = await gateway.invoke(writeNote, { title: 'a', body: 'b' }, { approval: grant });
 * }
 * ```
 */
export function createToolGateway(options: ToolGatewayOptions = {}): ToolGateway {
  checkOptions(options, GATEWAY_OPTIONS, 'createToolGateway()');
  checkOptions(
    options.hooks,
    ['onToolStart', 'onToolEnd', 'onApprovalRequested', 'onHookError'],
    'createToolGateway({ hooks })',
  );
  checkOptions(
    options.argumentLimits,
    ['maxChars', 'maxDepth'],
    'createToolGateway({ argumentLimits })',
  );
  const env = options.env ?? process.env;
  const defaultMode =
    options.approvalMode !== undefined
      ? parseApprovalMode(options.approvalMode, 'createToolGateway({ approvalMode })')
      : approvalModeFromEnv(env);
  const ttlMs = options.approvalTtlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0))
    throw new KsadkError('invalid_config', 'approvalTtlMs must be a positive number.');
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(defaultTimeoutMs > 0))
    throw new KsadkError('invalid_config', 'timeoutMs must be a positive number.');
  const budget = resolveResultBudget(options.budget, env);
  const limits = argumentLimitsOf(options.argumentLimits);
  const hooks = options.hooks ?? {};
  registerEnvSecrets(env);

  const reportHookError = (error: unknown, hook: string): void => {
    try {
      if (hooks.onHookError) hooks.onHookError(error, hook);
      else process.emitWarning(`KsADK gateway hook ${hook} threw: ${modelSafeErrorMessage(error)}`);
    } catch {
      // An error reporter that throws has nowhere left to report to.
    }
  };
  const callHook = <E>(name: 'onToolStart' | 'onToolEnd', event: E): void => {
    const hook = hooks[name] as ((event: E) => void) | undefined;
    if (!hook) return;
    try {
      hook(event);
    } catch (error) {
      reportHookError(error, name);
    }
  };

  if (!options.approvalStore && approvalStoreChoice(env).kind !== 'memory') {
    throw new KsadkError(
      'invalid_config',
      `${APPROVAL_STORE_ENV} names a shared approval store, which createToolGateway cannot open by itself: pass approvalStore: await approvalStoreFromEnv() (the adapters' loaders do this for you).`,
    );
  }
  const store = options.approvalStore ?? createInMemoryApprovalStore();
  const approvals = createApprovalGate({
    store,
    keys: resolveApprovalKeys(
      {
        secret: options.approvalSecret,
        previous: options.approvalPreviousSecrets,
        shared: store.shared === true,
      },
      env,
    ),
    ttlMs,
    budget,
    ...(hooks.onApprovalRequested
      ? {
          onRequested: (request, context) => {
            try {
              hooks.onApprovalRequested?.(request, context);
            } catch (error) {
              reportHookError(error, 'onApprovalRequested');
            }
          },
        }
      : {}),
  });

  checkOptions(
    options.tracing === false ? undefined : options.tracing,
    ['tracerProvider', 'recordArguments', 'recordResults'],
    'createToolGateway({ tracing })',
  );
  const tracer = createToolTracer(options.tracing, INSTRUMENTATION_VERSION);

  const modeFor = (context: InvocationContext): ApprovalMode => context.approvalMode ?? defaultMode;

  const run = async (
    tool: Tool,
    rawArgs: unknown,
    options: ToolCallOptions,
    callId: string,
    trace: ToolCallTrace | undefined,
  ): Promise<ToolResult> => {
    const context = getInvocationContextOrEmpty();
    const parsed = parseModelArguments(rawArgs, limits);
    if (!parsed.ok) {
      return {
        ok: false,
        error_type: 'invalid_arguments',
        error_message: `Invalid arguments for ${tool.name}: ${parsed.message}`,
        issues: parsed.issues,
      };
    }
    const validation = await validateToolInput(tool, parsed.args);
    if (!validation.ok) {
      const first = validation.issues[0];
      return {
        ok: false,
        error_type: 'invalid_arguments',
        error_message: `Invalid arguments for ${tool.name}${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : '.'}`,
        issues: validation.issues,
      };
    }
    trace?.arguments(validation.value);
    let granted: { call: GatedCall; grant: GrantedCall } | undefined;
    if (policyRequiresApproval(tool.policy, modeFor(context))) {
      const call: GatedCall = {
        tool,
        args: validation.value,
        context,
        callId,
        callIdGiven: options.callId !== undefined,
        continuation: options.continuation ?? 'run',
        approval: options.approval,
      };
      const decision = await approvals.check(call);
      if (!('granted' in decision)) {
        trace?.approval(
          decision.error_type === 'approval_required'
            ? 'required'
            : decision.error_type === 'approval_rejected'
              ? 'rejected'
              : 'replayed',
        );
        return decision as unknown as ToolResult;
      }
      trace?.approval('approved');
      granted = { call, grant: decision };
    }
    const outcome = await runWithTimeout(
      tool,
      validation.value,
      {
        toolName: tool.name,
        callId,
        invocation: context,
        gateway,
        approval: options.approval,
        onProgress: options.onProgress,
        askHuman: options.askHuman,
      },
      options.signal,
      options.timeoutMs ?? tool.timeoutMs ?? defaultTimeoutMs,
    );
    if ('failure' in outcome) return outcome.failure;
    // A granted call that stopped to ask the human keeps its approval for the resumed run.
    if (granted && isInputRequired(outcome.value))
      await approvals.continueAfterInput(granted.call, granted.grant);
    if (outcome.value instanceof Error) return failedResult(outcome.value);
    const { text, media } = splitResultMedia(outcome.value);
    if (
      exceedsChars(text, MAX_RESULT_CHARS) ||
      (media !== undefined && exceedsChars(media.slice(0, MAX_MEDIA_PARTS), MAX_MEDIA_CHARS))
    ) {
      return {
        ok: false,
        error_type: 'result_too_large',
        error_message: `${tool.name} returned more than ${MAX_RESULT_CHARS} characters of data (or ${MAX_MEDIA_CHARS} of media); nothing of it was kept.`,
      };
    }
    // Plain data first, then redaction, then budgeting: previews and saved files never hold a
    // credential, and a cut can never split one. Media is checked part by part when it is saved.
    const plain = redactDeep(toToolResult(toPlainJson(text)));
    return shapeResult(plain, { tool, callId, context }, budget, media);
  };

  const gateway: ToolGateway = {
    approvalMode: defaultMode,
    budget,

    async invoke(tool, rawArgs, callOptions) {
      const options = callOptions ?? {};
      const callId = options.callId ?? nextCallId();
      const observed = hooks.onToolStart !== undefined || hooks.onToolEnd !== undefined;
      const startedAt = observed ? performance.now() : 0;
      const invocationId =
        observed || tracer ? getInvocationContextOrEmpty().invocationId : undefined;
      if (hooks.onToolStart) callHook('onToolStart', { toolName: tool.name, callId, invocationId });
      const trace = tracer?.start(tool, callId, invocationId);
      let result: ToolResult;
      try {
        const running = () => run(tool, rawArgs, options, callId, trace);
        result = redactOutsideMedia(await (trace ? trace.run(running) : running()));
      } catch (error) {
        // Nothing a tool, a file, a store or a model does may reject invoke.
        result = failedResult(error);
      }
      if (trace) {
        try {
          trace.end(result, outcomeOf(result));
        } catch (error) {
          reportHookError(error, 'tracing');
        }
      }
      if (hooks.onToolEnd) {
        const outcome = outcomeOf(result);
        callHook('onToolEnd', {
          toolName: tool.name,
          callId,
          invocationId,
          durationMs: performance.now() - startedAt,
          outcome,
          errorType: outcome === 'ok' ? undefined : (result['error_type'] as string | undefined),
        });
      }
      return result;
    },

    approve: (approvalId, decision) => approvals.approve(approvalId, decision),
    reject: (approvalId, decision) => approvals.reject(approvalId, decision),
    getApprovalRequest: (approvalId, lookup = {}) =>
      approvals.getRequest(approvalId, lookup.principal),

    requiresApproval(tool) {
      return policyRequiresApproval(tool.policy, modeFor(getInvocationContextOrEmpty()));
    },
  };
  return gateway;
}
