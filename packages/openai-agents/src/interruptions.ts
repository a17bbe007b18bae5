import { decideApproval, KsadkError } from '@ksadk/core';
import { type ApprovalPause, approvalPauseFor } from '@ksadk/core/adapter';
import type { RunToolApprovalItem } from '@openai/agents';
import { interruptedCall, openRequestOf, sdkDecisionOf } from './registered-tools.js';

/**
 * The gateway's full approval request behind one of a run's interruptions — tool, risk and why,
 * side effects, the whole arguments, their digest, the expiry — with the SDK's call id: what to
 * show the human before `state.approve(item)` or `state.reject(item)`. `undefined` when KsADK did
 * not ask for it: not a KsADK tool, a request no longer open (expired, or decided in the gateway's
 * inbox), or a call whose arguments are not a JSON object (the SDK pauses those by itself; nothing
 * can run them, so reject them). Looked up in the current invocation context's account and session,
 * never made here.
 *
 * @example
 * ```ts
 * for (const item of result.interruptions) {
 *   const pause = await approvalRequestOf(item);
 *   if (pause && (await askHuman(pause.approval_request))) result.state.approve(item);
 *   else result.state.reject(item, { message: 'The user rejected this call.' });
 * }
 * ```
 */
export async function approvalRequestOf(
  interruption: RunToolApprovalItem,
): Promise<ApprovalPause | undefined> {
  const call = interruptedCall(interruption);
  const pending = call ? await openRequestOf(call) : undefined;
  if (!call || !pending) return undefined;
  return approvalPauseFor(call.entry.gateway, pending, call.callId);
}

/**
 * Makes the host's rejections in `state` final in the gateway: call it after `state.reject(item)`
 * (with `alwaysReject` too), before `run(agent, state)`. The SDK answers a rejected call itself,
 * without asking the tool, so the gateway's request for it would stay open until it expires; this
 * rejects exactly that request (the call id, the arguments, the account and session), with the
 * host's message as the reason — for `alwaysReject`, as a standing rejection for the session.
 * Interruptions not yet decided, approved ones and other tools' are left alone.
 *
 * @example
 * ```ts
 * result.state.reject(item, { message: 'Not that file.' });
 * await settleRejections(result.state);
 * result = await run(agent, result.state);
 * ```
 */
export async function settleRejections(state: {
  getInterruptions(): RunToolApprovalItem[];
}): Promise<void> {
  const context = (state as { _context?: Parameters<typeof sdkDecisionOf>[0] })._context;
  if (typeof context?.isToolApproved !== 'function')
    throw new KsadkError(
      'invalid_config',
      'settleRejections() takes a RunState of @openai/agents.',
    );
  for (const item of state.getInterruptions()) {
    const call = interruptedCall(item);
    if (!call) continue;
    const decided = sdkDecisionOf(context, call.toolName, call.callId);
    if (decided?.approved !== false) continue;
    const pending = await openRequestOf(call);
    if (!pending) continue;
    const reason = context.getRejectionMessage(call.toolName, call.callId);
    await decideApproval(call.entry.gateway, pending.approval_request.id, {
      type: 'reject',
      reason: reason ?? 'The user rejected the call.',
      ...(decided.always ? { always: 'session' } : {}),
    }).catch((error: unknown) => {
      // Decided in between (expired, or in the inbox): nothing is left to reject.
      if (!KsadkError.isInstance(error) || error.code !== 'approval_not_found') throw error;
    });
  }
}
