import type { CredentialRequest } from '../../credentials/credential-required.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { HumanInputRequest } from '../../tool/human-input.js';
import type { ApprovalRequest, ToolResult } from '../results.js';
import type { BatchedToolCall, ModelToolCall, SavedToolCall } from './call-batch.js';

/** The current version of {@link ToolLoopState}. */
export const TOOL_LOOP_STATE_VERSION = 1;
const MAX_CALLS = 256;

/**
 * A paused tool loop as plain JSON: the conversation so far and the turn's calls with their
 * outcomes. Save it anywhere (a database row, a queue message) and resume it in any process. It
 * holds no credential: approvals stay bound by the gateway's store, so a state edited in transit
 * can only produce a fresh approval request, never an unapproved call. It does carry the
 * conversation, so store it as you store conversations.
 */
export interface ToolLoopState<Type extends string = string, Api extends string = string> {
  /** Which adapter's loop saved it (`ksadk.openai.tool_loop`, `ksadk.anthropic.tool_loop`). */
  readonly type: Type;
  readonly version: typeof TOOL_LOOP_STATE_VERSION;
  readonly api: Api;
  readonly turns: number;
  /** The conversation in the API's own shape. */
  readonly messages: unknown[];
  /** The paused turn's calls, in the model's order. */
  readonly calls: readonly SavedToolCall[];
}

/** Builds the state of a paused loop (copies, so later turns do not change it). */
export function toolLoopState<Type extends string, Api extends string>(
  kind: { readonly type: Type; readonly api: Api },
  turns: number,
  messages: readonly unknown[],
  calls: readonly SavedToolCall[],
): ToolLoopState<Type, Api> {
  return {
    type: kind.type,
    version: TOOL_LOOP_STATE_VERSION,
    api: kind.api,
    turns,
    messages: structuredClone([...messages]),
    calls: structuredClone([...calls]),
  };
}

const invalid = (detail: string): KsadkError =>
  new KsadkError('invalid_state', `The saved tool loop state cannot be resumed: ${detail}.`);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function readCall(value: unknown, index: number): SavedToolCall {
  const where = `calls[${index}]`;
  if (!isRecord(value)) throw invalid(`${where} is not an object`);
  const { callId, name, status, result, approvalRequest, inputRequest, credentialRequest } = value;
  const args = value['arguments'];
  if (typeof callId !== 'string' || typeof name !== 'string' || typeof args !== 'string')
    throw invalid(`${where} needs string callId, name and arguments`);
  if (status !== 'done' && status !== 'pending')
    throw invalid(`${where}.status must be "done" or "pending"`);
  if (!isRecord(result) || typeof result['ok'] !== 'boolean')
    throw invalid(`${where}.result must be a tool result`);
  for (const [field, given] of Object.entries({ approvalRequest, inputRequest, credentialRequest }))
    if (given !== undefined && !isRecord(given))
      throw invalid(`${where}.${field} must be an object`);
  return {
    callId,
    name,
    arguments: args,
    status,
    result: result as ToolResult,
    ...(approvalRequest ? { approvalRequest: approvalRequest as unknown as ApprovalRequest } : {}),
    ...(inputRequest ? { inputRequest: inputRequest as unknown as HumanInputRequest } : {}),
    ...(credentialRequest
      ? { credentialRequest: credentialRequest as unknown as CredentialRequest }
      : {}),
  };
}

/**
 * Reads a saved state (the object, or its JSON text), checking its shape, version, type and API.
 *
 * @throws {KsadkError} `invalid_state` when it is malformed, of another version, saved by another
 * adapter's loop, or for another API.
 */
export function readToolLoopState<Type extends string, Api extends string>(
  value: unknown,
  kind: { readonly type: Type; readonly api: Api },
): ToolLoopState<Type, Api> {
  let state = value;
  if (typeof state === 'string') {
    try {
      state = JSON.parse(state) as unknown;
    } catch {
      throw invalid('it is not valid JSON');
    }
  }
  if (!isRecord(state) || state['type'] !== kind.type)
    throw invalid(`it is not a tool loop state (${kind.type})`);
  if (state['version'] !== TOOL_LOOP_STATE_VERSION)
    throw invalid(
      `version ${JSON.stringify(state['version'])} is not supported (this version reads ${TOOL_LOOP_STATE_VERSION})`,
    );
  if (state['api'] !== kind.api)
    throw invalid(`it was saved by a loop using the ${String(state['api'])} API, not ${kind.api}`);
  const turns = state['turns'];
  if (typeof turns !== 'number' || !Number.isInteger(turns) || turns < 0)
    throw invalid('turns must be a whole number');
  if (!Array.isArray(state['messages'])) throw invalid('messages must be an array');
  const calls = state['calls'];
  if (!Array.isArray(calls) || calls.length === 0 || calls.length > MAX_CALLS)
    throw invalid(`calls must be an array of 1 to ${MAX_CALLS} calls`);
  return {
    type: kind.type,
    version: TOOL_LOOP_STATE_VERSION,
    api: kind.api,
    turns,
    // A copy: the loop appends to it, and the caller's saved object stays as it was.
    messages: [...(state['messages'] as unknown[])],
    calls: calls.map(readCall),
  };
}

/** The calls and outcomes of a saved state, ready for `toolCallBatch`. */
export function savedBatch(state: ToolLoopState): {
  calls: ModelToolCall[];
  outcomes: BatchedToolCall[];
} {
  return {
    calls: state.calls.map(({ callId, name, arguments: args }) => ({
      callId,
      name,
      arguments: args,
    })),
    outcomes: state.calls.map((call) => ({
      callId: call.callId,
      toolName: call.name,
      result: call.result,
      status: call.status,
      ...(call.approvalRequest ? { approvalRequest: call.approvalRequest } : {}),
      ...(call.inputRequest ? { inputRequest: call.inputRequest } : {}),
      ...(call.credentialRequest ? { credentialRequest: call.credentialRequest } : {}),
    })),
  };
}
