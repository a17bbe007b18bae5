import {
  type CredentialRequest,
  isCredentialRequired,
} from '../../credentials/credential-required.js';
import { type HumanInputRequest, isInputRequired } from '../../tool/human-input.js';
import { type ApprovalRequest, isApprovalRequired, type ToolResult } from '../results.js';

/** A model's tool call, whatever the provider: its id, the tool's name and the JSON arguments. */
export interface ModelToolCall {
  readonly callId: string;
  readonly name: string;
  /** The model's JSON arguments, as text. */
  readonly arguments: string;
}

/** One call's outcome. */
export interface BatchedToolCall {
  callId: string;
  toolName: string;
  /** The gateway's result (an `approval_required` envelope while pending). */
  result: ToolResult;
  /** `pending` until the host decides; `done` once there is an output for the model. */
  status: 'done' | 'pending';
  /** While pending for approval: the full request for the human (the result holds the model's budgeted copy). */
  approvalRequest?: ApprovalRequest;
  /** While pending for a question the call asked mid-way (an MCP elicitation). */
  inputRequest?: HumanInputRequest;
  /** While pending for the user's credential (a sign-in or a key; no secret in it). */
  credentialRequest?: CredentialRequest;
}

/**
 * A call waiting for the host: an approval to decide (`approvalRequest`), a question to answer
 * (`inputRequest`, answered with `{ action: 'accept', content } | { action: 'decline' | 'cancel' }`
 * keyed by call id), or a credential to provide.
 */
export type PendingToolCall =
  | { kind: 'approval'; callId: string; toolName: string; approvalRequest: ApprovalRequest }
  | { kind: 'input'; callId: string; toolName: string; inputRequest: HumanInputRequest }
  | {
      kind: 'credential';
      callId: string;
      toolName: string;
      /** Answered with `{ callbackUrl }`, `{ apiKey }` or `{ token }` (keyed by call id or request id). */
      credentialRequest: CredentialRequest;
    };

/** A host decision for {@link ToolCallBatch.resume}; see `parseApprovalDecision` for the shapes. */
export type ToolCallDecision = unknown;

/** One call of a batch as plain, serialisable data. */
export interface SavedToolCall {
  callId: string;
  name: string;
  /** The model's JSON arguments, as it sent them. */
  arguments: string;
  status: 'done' | 'pending';
  result: ToolResult;
  approvalRequest?: ApprovalRequest;
  inputRequest?: HumanInputRequest;
  credentialRequest?: CredentialRequest;
}

/** The result of running one assistant turn's tool calls, whatever the provider. */
export interface ToolCallBatch {
  /** Every call, in the model's order. */
  readonly calls: readonly BatchedToolCall[];
  /** Calls waiting for a decision. Send nothing to the model until this is empty. */
  readonly pending: readonly PendingToolCall[];
  /** True when every call has an output. */
  readonly done: boolean;
  /**
   * Applies the host's decisions (keyed by call id, approval id or credential request id) through
   * the gateway and re-runs the decided calls; approved ones run once, rejected ones answer
   * `approval_rejected`. Undecided calls stay pending.
   */
  resume(decisions: Readonly<Record<string, ToolCallDecision>>): Promise<ToolCallBatch>;
  /** Every call as plain data (the model's call and its outcome), for a saved loop state. */
  toJSON(): SavedToolCall[];
}

/**
 * Runs one call, whatever happens: a failure becomes that call's own result, never the batch's.
 * `awaiting` is the approval id, question key or credential request id `decision` answers.
 */
export type CallRunner = (
  call: ModelToolCall,
  decision?: ToolCallDecision,
  awaiting?: string,
) => Promise<BatchedToolCall>;

function pendingOf(outcome: BatchedToolCall): PendingToolCall[] {
  if (outcome.status !== 'pending') return [];
  const { callId, toolName } = outcome;
  if (outcome.approvalRequest)
    return [{ kind: 'approval', callId, toolName, approvalRequest: outcome.approvalRequest }];
  if (outcome.inputRequest)
    return [{ kind: 'input', callId, toolName, inputRequest: outcome.inputRequest }];
  if (outcome.credentialRequest)
    return [{ kind: 'credential', callId, toolName, credentialRequest: outcome.credentialRequest }];
  return [];
}

/** The host's answer for a pending call, and the request it answers; `undefined` when undecided. */
function answerFor(
  outcome: BatchedToolCall,
  decisions: Readonly<Record<string, ToolCallDecision>>,
): { answer: ToolCallDecision; awaiting: string } | undefined {
  const own = (key: string): ToolCallDecision =>
    Object.hasOwn(decisions, key) ? decisions[key] : undefined;
  const { result, callId } = outcome;
  let awaiting: string;
  let answer: ToolCallDecision;
  if (isInputRequired(result)) {
    awaiting = result.input_request.request_key;
    answer = own(callId);
  } else if (isCredentialRequired(result)) {
    awaiting = result.credential_request.id;
    answer = own(callId) ?? own(awaiting);
  } else if (isApprovalRequired(result)) {
    awaiting = result.approval_request.id;
    answer = own(callId) ?? own(awaiting);
  } else return undefined;
  return answer === undefined ? undefined : { answer, awaiting };
}

/**
 * The batch view over one turn's outcomes: what is pending, the saved form, and `resume`, which
 * re-runs the decided calls through `run` (each decision applies only to the request it was
 * given for). Provider adapters add their own output shapes on top.
 */
export function toolCallBatch(
  calls: readonly ModelToolCall[],
  outcomes: readonly BatchedToolCall[],
  run: CallRunner,
): ToolCallBatch {
  const pending = outcomes.flatMap(pendingOf);
  return {
    calls: outcomes,
    pending,
    done: pending.length === 0,
    toJSON: () =>
      outcomes.map((outcome, index) => ({
        callId: outcome.callId,
        name: calls[index]?.name ?? outcome.toolName,
        arguments: calls[index]?.arguments ?? '',
        status: outcome.status,
        result: outcome.result,
        ...(outcome.approvalRequest ? { approvalRequest: outcome.approvalRequest } : {}),
        ...(outcome.inputRequest ? { inputRequest: outcome.inputRequest } : {}),
        ...(outcome.credentialRequest ? { credentialRequest: outcome.credentialRequest } : {}),
      })),
    async resume(decisions) {
      const next = await Promise.all(
        outcomes.map((outcome, index) => {
          if (outcome.status === 'done') return outcome;
          const decided = answerFor(outcome, decisions);
          return decided ? run(calls[index]!, decided.answer, decided.awaiting) : outcome;
        }),
      );
      return toolCallBatch(calls, next, run);
    },
  };
}
