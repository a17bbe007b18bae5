import { PAUSED } from '../../tool/paused.js';
import type { Tool } from '../../tool/tool.js';
import type { ToolCallOptions, ToolGateway } from '../gateway-types.js';
import { isApprovalRequired, type ToolResult } from '../results.js';
import { decideApproval } from './decision.js';
import { type ApprovalPause, approvalPauseFor } from './pause.js';

export { PAUSED };

/** Options for {@link invokeWithApproval}. */
export interface ApprovalRoundTripOptions extends Omit<ToolCallOptions, 'approval'> {
  /**
   * The framework's half of the round trip: given the pause (the full request and the call id),
   * return the human's decision — any shape `parseApprovalDecision` reads — or {@link PAUSED}
   * when the framework pauses now (LangGraph's `interrupt` throws instead; that is fine).
   */
  decide(pause: ApprovalPause): unknown;
}

/** How {@link invokeWithApproval} ended. */
export type ApprovalRoundTripOutcome =
  | { readonly status: 'done'; readonly result: ToolResult }
  | { readonly status: 'paused'; readonly result: ToolResult; readonly pause: ApprovalPause };

/**
 * The approval round trip, once, for every framework: invoke → on `approval_required`, hand the
 * framework the pause → take its decision (approve, reject with a reason) → invoke again with the
 * grant, or answer `approval_rejected`. A decision that cannot be read rejects. The side effect
 * runs only after an approval, and only once. Adapters only translate the pause and the decision
 * into their framework's idiom.
 *
 * @example
 * ```ts
 * const outcome = await invokeWithApproval(gateway, tool, args, {
 *   callId,
 *   decide: (pause) => interrupt(pause), // LangGraph: pauses the graph, returns the resume value
 * });
 * ```
 */
export async function invokeWithApproval(
  gateway: ToolGateway,
  tool: Tool,
  rawArgs: unknown,
  options: ApprovalRoundTripOptions,
): Promise<ApprovalRoundTripOutcome> {
  const { decide, ...callOptions } = options;
  const first = await gateway.invoke(tool, rawArgs, callOptions);
  if (!isApprovalRequired(first)) return { status: 'done', result: first };
  const pause = await approvalPauseFor(gateway, first, callOptions.callId);
  const decision = await decide(pause);
  if (decision === PAUSED) return { status: 'paused', result: first, pause };
  const grant = await decideApproval(gateway, pause.approval_request.id, decision);
  const result = await gateway.invoke(tool, rawArgs, {
    ...callOptions,
    ...(grant ? { approval: grant } : {}),
  });
  return { status: 'done', result };
}
