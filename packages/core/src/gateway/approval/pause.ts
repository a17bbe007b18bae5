import type {
  CredentialRequest,
  CredentialRequiredResult,
} from '../../credentials/credential-required.js';
import type { ToolGateway } from '../gateway-types.js';
import type { ApprovalRequest, ApprovalRequiredResult } from '../results.js';

/**
 * What every adapter pauses with when a call needs a human decision — LangGraph's `interrupt`
 * value, ADK's confirmation payload, the OpenAI loop's pending call: the full approval request
 * (whole arguments, for the human) and the framework's tool call id.
 */
export interface ApprovalPause {
  readonly type: 'ksadk_approval';
  /** The model's tool call id, when the framework has one. */
  readonly tool_call_id: string | undefined;
  /** What to decide: tool, risk, side effects, the full arguments, their digest, the expiry. */
  readonly approval_request: ApprovalRequest;
}

/**
 * What every adapter pauses with when a call needs the user's credential: the request (where to
 * sign in, or what key to give — never a secret) and the framework's tool call id. The host answers
 * `{ callbackUrl }`, `{ apiKey }` or `{ token }`, or `{ action: 'cancel' }`.
 */
export interface CredentialPause {
  readonly type: 'ksadk_credential';
  readonly tool_call_id: string | undefined;
  readonly credential_request: CredentialRequest;
}

/** The pause for a `credential_required` result. */
export function credentialPauseFor(
  result: CredentialRequiredResult,
  toolCallId: string | undefined,
): CredentialPause {
  return {
    type: 'ksadk_credential',
    tool_call_id: toolCallId,
    credential_request: structuredClone(result.credential_request),
  };
}

/**
 * Builds the pause for an `approval_required` result. The model saw a budgeted request; the human
 * gets the full one from the gateway (looked up for the current invocation context's account).
 *
 * @example
 * ```ts
 * const result = await gateway.invoke(tool, args, { callId });
 * if (isApprovalRequired(result)) interrupt(await approvalPauseFor(gateway, result, callId));
 * ```
 */
export async function approvalPauseFor(
  gateway: ToolGateway,
  result: ApprovalRequiredResult,
  toolCallId: string | undefined,
): Promise<ApprovalPause> {
  const summary = result.approval_request;
  const full = await gateway.getApprovalRequest(summary.id);
  const { arguments: args, ...rest } = summary;
  return {
    type: 'ksadk_approval',
    tool_call_id: toolCallId,
    // The request can only be missing if it expired in between; the summary is then all there is.
    approval_request: full ?? {
      id: rest.id,
      tool_name: rest.tool_name,
      risk_level: rest.risk_level,
      side_effects: rest.side_effects,
      args_digest: rest.args_digest,
      expires_at: rest.expires_at,
      arguments: args ?? {},
    },
  };
}
