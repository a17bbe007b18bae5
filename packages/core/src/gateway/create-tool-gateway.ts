import { randomUUID } from 'node:crypto';
import {
  getInvocationContextOrEmpty,
  type InvocationContext,
} from '../context/invocation-context.js';
import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { isVettedMedia, TOOL_MEDIA_FIELD } from '../tool/tool-media.js';
import { redactDeep } from '../util/redact.js';
import { isThenable } from '../util/thenable.js';
import { principalOf } from './approval/approval-owner.js';
import type { ApprovalMode } from './approval/mode.js';
import { policyRequiresApproval } from './approval/policy.js';
import { createExecutionRecorder } from './execution-recorder.js';
import { type GatedCallContext, pendingApprovalOf, runGatedCall } from './gated-call.js';
import { createGatewayApprovals } from './gateway-approvals.js';
import { lazyCredentialBroker, registerStoredTokenLookup } from './gateway-credentials.js';
import { getExecution, listExecutions } from './gateway-executions.js';
import { createHookCalls } from './gateway-hooks.js';
import { resolveGatewaySettings } from './gateway-settings.js';
import type {
  ApprovalPrincipal,
  ToolCallOutcome,
  ToolGateway,
  ToolGatewayOptions,
} from './gateway-types.js';
import { failedResult, type ToolResult } from './results.js';
import { createToolTracer, type ToolCallTrace } from './tool-tracing.js';

export type {
  ApprovalDecisionOptions,
  ApprovalPrincipal,
  ExecutionDetail,
  ExecutionListOptions,
  GatewayCredentialOptions,
  GatewayExecutionOptions,
  PendingApprovalOptions,
  ToolCallOptions,
  ToolCallOutcome,
  ToolEndEvent,
  ToolGateway,
  ToolGatewayHooks,
  ToolGatewayOptions,
  ToolStartEvent,
} from './gateway-types.js';

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
    case 'approval_expired':
      return result['error_type'];
    case 'tool_timeout':
      return 'timeout';
    case 'tool_aborted':
      return 'aborted';
    default:
      return 'error';
  }
}

/** The person a credential belongs to: an account and user, never an admin. */
function personOf(given: ApprovalPrincipal | undefined): { accountId: string; userId?: string } {
  const principal = principalOf(given);
  if ('admin' in principal)
    throw new KsadkError(
      'invalid_arguments',
      "Credentials are a user's own: name the account and user, not { admin: true }.",
    );
  return principal;
}

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
  const settings = resolveGatewaySettings(options);
  const { defaultMode, budget, hooks } = settings;
  const { reportHookError, callHook } = createHookCalls(hooks);
  const { gate: approvals, host } = createGatewayApprovals(options, settings, {
    reportHookError,
    callHook,
  });
  checkOptions(
    options.tracing === false ? undefined : options.tracing,
    { tracerProvider: true, recordArguments: true, recordResults: true },
    'createToolGateway({ tracing })',
  );
  const tracer = createToolTracer(options.tracing, INSTRUMENTATION_VERSION);
  const credentials = lazyCredentialBroker(options, settings.env, approvals);
  const modeFor = (context: InvocationContext): ApprovalMode => context.approvalMode ?? defaultMode;
  const executions = createExecutionRecorder(settings.executions, budget, reportHookError);

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
      let trace: ToolCallTrace | undefined;
      try {
        trace = tracer?.start(tool, callId, invocationId);
      } catch (error) {
        // A tracer provider that fails costs the call its span, never the call.
        reportHookError(error, 'tracing');
      }
      let result: ToolResult;
      try {
        // A call that can be aborted proceeds after invoke() has returned its promise, so an
        // abort sent right after invoke() stops the tool before it runs.
        if (options.signal) await undefined;
        const running = () => runGatedCall(tool, rawArgs, options, callId, trace, calls);
        const outcome = trace ? trace.run(running) : running();
        result = redactOutsideMedia(isThenable(outcome) ? await outcome : outcome);
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

    approve: (approvalId, decision) => host.approve(approvalId, decision),
    reject: (approvalId, decision) => host.reject(approvalId, decision),
    getApprovalRequest: (approvalId, lookup = {}) => host.getRequest(approvalId, lookup.principal),
    approvalStatus: (approvalId, lookup = {}) => host.getStatus(approvalId, lookup.principal),
    listApprovalRequests: (query = {}) => host.listRequests(query),
    listStandingGrants: (query = {}) => host.listStandingGrants(query),
    revokeStandingGrant: (id, revocation) => host.revokeStandingGrant(id, revocation),
    auditLog: (query = {}) => host.auditLog(query),
    provideCredential: async (requestId, answer, provided = {}) =>
      credentials().provide(requestId, answer, personOf(provided.principal)),
    listCredentials: async (query = {}) => credentials().list(personOf(query.principal)),
    revokeCredential: async (credentialId, revocation = {}) =>
      credentials().revoke(credentialId, personOf(revocation.principal)),
    executions: async (query = {}) => listExecutions(settings.executions.store, query),
    execution: async (id, lookup = {}) =>
      getExecution(settings.executions.store, budget, id, lookup.principal),

    async pendingApproval(tool, rawArgs, callOptions = {}) {
      try {
        return await pendingApprovalOf(
          tool,
          rawArgs,
          callOptions,
          callOptions.callId ?? nextCallId(),
          calls,
        );
      } catch (error) {
        // A store that fails: the call is invoked, and its own check tells the model.
        reportHookError(error, 'pendingApproval');
        return undefined;
      }
    },

    requiresApproval(tool) {
      return policyRequiresApproval(tool.policy, modeFor(getInvocationContextOrEmpty()));
    },
  };
  const calls: GatedCallContext = {
    gateway,
    approvals,
    limits: settings.limits,
    budget,
    defaultTimeoutMs: settings.defaultTimeoutMs,
    policyTimeoutMs: settings.policyTimeoutMs,
    modeFor,
    executions,
    credentials,
  };
  registerStoredTokenLookup(gateway, credentials);
  return gateway;
}
