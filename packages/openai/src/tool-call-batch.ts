import {
  type ApprovalRequest,
  type CredentialRequest,
  type HumanInputRequest,
  isApprovalRequired,
  isCredentialRequired,
  isInputRequired,
  type ToolResult,
} from '@ksadk/core';
import { describeMediaInResult, takeToolMedia } from '@ksadk/core/adapter';
import type { ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';

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
 * A call waiting for the host: an approval to decide (`approvalRequest`), or a question to answer
 * (`inputRequest`, answered with `{ action: 'accept', content } | { action: 'decline' | 'cancel' }`
 * keyed by call id).
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

/** The result of running one assistant turn's tool calls. */
export interface ToolCallBatch {
  /** Every call, in the model's order. */
  readonly calls: readonly BatchedToolCall[];
  /** Calls waiting for a decision. Send nothing to the model until this is empty. */
  readonly pending: readonly PendingToolCall[];
  /** True when every call has an output. */
  readonly done: boolean;
  /** Tool messages (Chat Completions) for the calls that are done, in call order. */
  toolMessages(): ChatCompletionToolMessageParam[];
  /** `function_call_output` items (Responses) for the calls that are done, in call order. */
  functionCallOutputs(): ResponseInputItem.FunctionCallOutput[];
  /**
   * Applies the host's decisions (keyed by call id or approval id) through the gateway and
   * re-runs the decided calls; approved ones run once, rejected ones answer
   * `approval_rejected`. Undecided calls stay pending.
   */
  resume(decisions: Readonly<Record<string, ToolCallDecision>>): Promise<ToolCallBatch>;
  /** Every call as plain data (the model's call and its outcome), for a saved loop state. */
  toJSON(): SavedToolCall[];
}

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

/** A tool call from either API, reduced to what running it needs. */
export interface NormalizedCall {
  callId: string;
  name: string;
  arguments: string;
}

/**
 * A Responses `function_call_output`: the result as text, and its images as `input_image` items
 * the model can look at (audio is described: function outputs take no audio).
 */
function functionCallOutput(outcome: BatchedToolCall): ResponseInputItem.FunctionCallOutput {
  const { result, media } = takeToolMedia(outcome.result, { accept: ['image'] });
  const text = JSON.stringify(result);
  return {
    type: 'function_call_output',
    call_id: outcome.callId,
    output:
      media.length === 0
        ? text
        : [
            { type: 'input_text', text },
            ...media.map((part) => ({
              type: 'input_image' as const,
              image_url: `data:${part.mime_type};base64,${part.data}`,
              detail: 'auto' as const,
            })),
          ],
  };
}

/** The batch view over one turn's outcomes; `resume` re-runs decided calls through `run`. */
export function batchOf(
  calls: NormalizedCall[],
  outcomes: BatchedToolCall[],
  run: (
    call: NormalizedCall,
    decision?: ToolCallDecision,
    awaiting?: string,
  ) => Promise<BatchedToolCall>,
): ToolCallBatch {
  const pending = outcomes.flatMap((outcome): PendingToolCall[] => {
    if (outcome.status !== 'pending') return [];
    const { callId, toolName } = outcome;
    if (outcome.approvalRequest)
      return [{ kind: 'approval', callId, toolName, approvalRequest: outcome.approvalRequest }];
    if (outcome.inputRequest)
      return [{ kind: 'input', callId, toolName, inputRequest: outcome.inputRequest }];
    if (outcome.credentialRequest)
      return [
        { kind: 'credential', callId, toolName, credentialRequest: outcome.credentialRequest },
      ];
    return [];
  });
  const done = outcomes.filter((outcome) => outcome.status === 'done');
  return {
    calls: outcomes,
    pending,
    done: pending.length === 0,
    // Chat Completions tool messages carry text only: media is described, never dumped as base64.
    toolMessages: () =>
      done.map((outcome) => ({
        role: 'tool',
        tool_call_id: outcome.callId,
        content: JSON.stringify(describeMediaInResult(outcome.result)),
      })),
    functionCallOutputs: () => done.map(functionCallOutput),
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
          if (isInputRequired(outcome.result)) {
            const answer = decisions[outcome.callId];
            return answer === undefined
              ? outcome
              : run(calls[index]!, answer, outcome.result.input_request.request_key);
          }
          if (isCredentialRequired(outcome.result)) {
            const requestId = outcome.result.credential_request.id;
            const answer = decisions[outcome.callId] ?? decisions[requestId];
            return answer === undefined ? outcome : run(calls[index]!, answer, requestId);
          }
          if (!isApprovalRequired(outcome.result)) return outcome;
          const approvalId = outcome.result.approval_request.id;
          const decision = decisions[outcome.callId] ?? decisions[approvalId];
          return decision === undefined ? outcome : run(calls[index]!, decision, approvalId);
        }),
      );
      return batchOf(calls, next, run);
    },
  };
}
