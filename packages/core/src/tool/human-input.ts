import { gatewayFailure } from '../gateway/results.js';
import { isPlainObject } from '../util/plain-object.js';
import type { PAUSED } from './paused.js';

/**
 * A question a running tool asks the human — an MCP server's elicitation. Adapters pause on it the
 * way they pause for approvals (LangGraph `interrupt`, ADK confirmation, the OpenAI loop's pending
 * call) and resume with the answer.
 */
export interface HumanInputRequest {
  readonly type: 'ksadk_input';
  /** The framework's tool call id of the call that asks. */
  readonly tool_call_id: string;
  readonly tool_name: string;
  /** Who asks (an MCP server's name). */
  readonly source: string;
  /** What to tell the human. */
  readonly message: string;
  /** The JSON Schema (a flat object of primitive fields) the answer's `content` must match. */
  readonly requested_schema: Readonly<Record<string, unknown>>;
  /** Stable for the same question in the same call: answers are matched to questions by it. */
  readonly request_key: string;
}

/** The human's answer (MCP's elicitation result). */
export type HumanInputAnswer =
  | { readonly action: 'accept'; readonly content: Readonly<Record<string, unknown>> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/**
 * The adapter's half of a question: return the answer (a resumed run), or {@link PAUSED} after
 * arranging the framework's pause (the call then returns `input_required`, and the adapter pauses).
 */
export type AskHuman = (
  request: HumanInputRequest,
) => HumanInputAnswer | typeof PAUSED | Promise<HumanInputAnswer | typeof PAUSED>;

/** The result of a call that stopped to wait for the human's answer: nothing was completed. */
export interface InputRequiredResult {
  ok: false;
  error_type: 'input_required';
  error_message: string;
  input_request: HumanInputRequest;
  [key: string]: unknown;
}

/** Whether a result is an {@link InputRequiredResult}. */
export function isInputRequired(value: unknown): value is InputRequiredResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { error_type?: unknown }).error_type === 'input_required' &&
    typeof (value as { input_request?: unknown }).input_request === 'object'
  );
}

/** The result a tool returns when the human's answer is awaited (the call was stopped). */
export function inputRequiredResult(request: HumanInputRequest): InputRequiredResult {
  return gatewayFailure(
    'input_required',
    `${request.tool_name} needs input from the user; the request was sent to them. Wait for their answer; do not retry.`,
    { input_request: request },
  );
}

/** Reads a host's answer in any of the shapes adapters accept; anything else is a decline. */
export function parseHumanInputAnswer(value: unknown): HumanInputAnswer {
  if (typeof value !== 'object' || value === null) return { action: 'decline' };
  const record = value as Record<string, unknown>;
  if (record['action'] === 'cancel') return { action: 'cancel' };
  if (record['action'] === 'accept') {
    const content = record['content'];
    if (isPlainObject(content))
      return { action: 'accept', content: structuredClone(content) as Record<string, unknown> };
  }
  return { action: 'decline' };
}
