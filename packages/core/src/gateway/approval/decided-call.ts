import type { Tool } from '../../tool/tool.js';
import type { ToolCallOptions, ToolGateway } from '../gateway-types.js';
import type { ToolResult } from '../results.js';
import { applyDecision } from './round-trip.js';

/** Options for {@link invokeDecidedCall}. */
export interface DecidedCallOptions extends Omit<ToolCallOptions, 'approval'> {
  /**
   * What the framework says a person decided for this call (any shape `parseApprovalDecision`
   * reads: `'approve'`, `{ type: 'approve', always: 'session' }`, `{ type: 'reject', reason }`…),
   * or `undefined` when nobody decided anything.
   */
  readonly decision: unknown;
}

/**
 * Runs a call that a framework's own approval flow says was decided (the AI SDK's
 * `tool-approval-response`, an OpenAI Agents `state.approve(item)`), honouring the decision only
 * through the request the gateway already made for this call id and these exact arguments, in
 * this account and session. No request is ever made here, so a decision the framework rebuilt
 * from client-supplied history — for other arguments, another call id, or one already used —
 * approves nothing: the call is invoked as is (it asks again, or answers from its record).
 *
 * Use `invokeWithApproval` when the adapter itself asks the human; use this when the framework
 * asked and only its answer reaches the tool.
 *
 * @example
 * ```ts
 * // In a framework tool's execute, once the framework says its human approved this call:
 * const result = await invokeDecidedCall(gateway, tool, input, { callId: toolCallId, decision: 'approve' });
 * ```
 */
export async function invokeDecidedCall(
  gateway: ToolGateway,
  tool: Tool,
  rawArgs: unknown,
  options: DecidedCallOptions,
): Promise<ToolResult> {
  const { decision, ...callOptions } = options;
  if (decision === undefined) return gateway.invoke(tool, rawArgs, callOptions);
  const pending = await gateway.pendingApproval(tool, rawArgs, {
    ...(callOptions.callId !== undefined ? { callId: callOptions.callId } : {}),
    ...(callOptions.continuation !== undefined ? { continuation: callOptions.continuation } : {}),
    create: false,
  });
  if (!pending) return gateway.invoke(tool, rawArgs, callOptions);
  const applied = await applyDecision(gateway, tool, pending.approval_request.id, decision);
  if ('refused' in applied) return applied.refused;
  return gateway.invoke(tool, rawArgs, {
    ...callOptions,
    ...(applied.grant ? { approval: applied.grant } : {}),
  });
}
