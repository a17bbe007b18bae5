import type { CredentialAnswer } from '../../credentials/credential-broker.js';
import {
  type CredentialRequiredResult,
  isCredentialRequired,
} from '../../credentials/credential-required.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import { PAUSED } from '../../tool/paused.js';
import type { Tool } from '../../tool/tool.js';
import type { ToolCallOptions, ToolGateway } from '../gateway-types.js';
import { gatewayFailure, isApprovalRequired, type ToolResult } from '../results.js';
import { decideApproval } from './decision.js';
import type { ApprovalGrant } from './grant.js';
import {
  type ApprovalPause,
  approvalPauseFor,
  type CredentialPause,
  credentialPauseFor,
} from './pause.js';

export { PAUSED };

/** Options for {@link invokeWithApproval}. */
export interface ApprovalRoundTripOptions extends Omit<ToolCallOptions, 'approval'> {
  /**
   * The framework's half of the round trip: given the pause (the full request and the call id),
   * return the human's decision — any shape `parseApprovalDecision` reads — or {@link PAUSED}
   * when the framework pauses now (LangGraph's `interrupt` throws instead; that is fine).
   */
  decide(pause: ApprovalPause | CredentialPause): unknown;
}

/** How {@link invokeWithApproval} ended. */
export type ApprovalRoundTripOutcome =
  | { readonly status: 'done'; readonly result: ToolResult }
  | {
      readonly status: 'paused';
      readonly result: ToolResult;
      readonly pause: ApprovalPause | CredentialPause;
    };

/** The decision applied: a grant, none (rejected or no longer decidable), or the reason it cannot run (edited arguments that do not fit). */
export async function applyDecision(
  gateway: ToolGateway,
  tool: Tool,
  approvalId: string,
  decision: unknown,
): Promise<{ grant: ApprovalGrant | undefined } | { refused: ToolResult }> {
  try {
    return { grant: await decideApproval(gateway, approvalId, decision, { tool }) };
  } catch (error) {
    if (!KsadkError.isInstance(error)) throw error;
    if (error.code === 'approval_not_found') {
      // Expired or already handled: the call itself finds out which, and tells the model.
      return { grant: undefined };
    }
    if (error.code !== 'invalid_arguments') throw error;
    // The human's edit does not fit the tool: nothing runs, and the request is closed.
    await gateway
      .reject(approvalId, { reason: 'The edited arguments were not valid.' })
      .catch(() => undefined);
    return {
      refused: gatewayFailure(
        'invalid_arguments',
        `${error.message} Nothing ran; ask the user how to proceed.`,
        { issues: (error.details?.['issues'] as unknown[] | undefined) ?? [] },
      ),
    };
  }
}

/** The credential the host answers with, read; `undefined` for a cancel or anything unreadable. */
export function parseCredentialAnswer(value: unknown): CredentialAnswer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['callbackUrl', 'apiKey', 'token'] as const) {
    const given = record[key];
    if (typeof given === 'string') return { [key]: given } as CredentialAnswer;
  }
  return undefined;
}

/**
 * The credential half of the round trip: hand the framework the pause, take the host's answer,
 * provide it, and run the call again — once. A cancel or an unreadable answer tells the model the
 * user did not sign in; a refused answer (a forged callback) stores nothing and runs nothing.
 */
async function credentialRoundTrip(
  gateway: ToolGateway,
  tool: Tool,
  rawArgs: unknown,
  options: ApprovalRoundTripOptions,
  first: CredentialRequiredResult,
): Promise<ApprovalRoundTripOutcome> {
  const { decide, ...callOptions } = options;
  const pause = credentialPauseFor(first, callOptions.callId);
  const answer = await decide(pause);
  if (answer === PAUSED) return { status: 'paused', result: first as unknown as ToolResult, pause };
  const credential = parseCredentialAnswer(answer);
  const failure = (type: string, message: string): ApprovalRoundTripOutcome => ({
    status: 'done',
    result: gatewayFailure(type as never, message),
  });
  if (!credential)
    return failure(
      'credential_refused',
      `The user did not provide the ${first.credential_request.credential_id} credential ${tool.name} needs; nothing ran.`,
    );
  try {
    await gateway.provideCredential(first.credential_request.id, credential);
  } catch (error) {
    if (!KsadkError.isInstance(error)) throw error;
    return failure(
      error.code === 'credential_not_found' ? 'credential_refused' : error.code,
      `The ${first.credential_request.credential_id} credential could not be stored (${error.code}); nothing ran.`,
    );
  }
  return { status: 'done', result: await gateway.invoke(tool, rawArgs, callOptions) };
}

/**
 * The approval round trip, once, for every framework: invoke → on `approval_required`, hand the
 * framework the pause → take its decision (approve, edit then approve, reject; once or "always")
 * → invoke again with the grant, or answer `approval_rejected`. A decision that cannot be read
 * rejects. The side effect runs only after an approval, only once, and with exactly the arguments
 * the human approved. Adapters only translate the pause and the decision into their framework's idiom.
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
  if (isCredentialRequired(first))
    return credentialRoundTrip(gateway, tool, rawArgs, options, first);
  if (!isApprovalRequired(first)) return { status: 'done', result: first };
  const pause = await approvalPauseFor(gateway, first, callOptions.callId);
  const decision = await decide(pause);
  if (decision === PAUSED) return { status: 'paused', result: first, pause };
  const applied = await applyDecision(gateway, tool, pause.approval_request.id, decision);
  if ('refused' in applied) return { status: 'done', result: applied.refused };
  const result = await gateway.invoke(tool, rawArgs, {
    ...callOptions,
    ...(applied.grant ? { approval: applied.grant } : {}),
  });
  return { status: 'done', result };
}
