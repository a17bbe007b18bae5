import {
  type ApprovalRequest,
  type CredentialRequest,
  type HumanInputRequest,
  KsadkError,
  type ToolResult,
} from '@ksadk/core';
import type { OpenAIApi } from './to-openai-tools.js';
import type { BatchedToolCall, NormalizedCall, SavedToolCall } from './tool-call-batch.js';

/** The current version of {@link ToolLoopState}. */
export const TOOL_LOOP_STATE_VERSION = 1;
const STATE_TYPE = 'ksadk.openai.tool_loop';
const MAX_CALLS = 256;

/**
 * A paused tool loop as plain JSON: the conversation so far and the turn's calls with their
 * outcomes. Save it anywhere (a database row, a queue message) and resume it in any process with
 * `loop.resume(state, decisions)` or `resumeToolLoop`. It holds no credential: approvals stay bound
 * by the gateway's store, so a state edited in transit can only produce a fresh approval request,
 * never an unapproved call. It does carry the conversation, so store it as you store conversations.
 */
export interface ToolLoopState {
  readonly type: typeof STATE_TYPE;
  readonly version: typeof TOOL_LOOP_STATE_VERSION;
  readonly api: OpenAIApi;
  readonly turns: number;
  /** The conversation in the API's own shape (Chat Completions messages or Responses items). */
  readonly messages: unknown[];
  /** The paused turn's calls, in the model's order. */
  readonly calls: readonly SavedToolCall[];
}

/** Builds the state of a paused loop. */
export function toolLoopState(
  api: OpenAIApi,
  turns: number,
  messages: readonly unknown[],
  calls: readonly SavedToolCall[],
): ToolLoopState {
  return {
    type: STATE_TYPE,
    version: TOOL_LOOP_STATE_VERSION,
    api,
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
  const {
    callId,
    name,
    arguments: args,
    status,
    result,
    approvalRequest,
    inputRequest,
    credentialRequest,
  } = value;
  if (typeof callId !== 'string' || typeof name !== 'string' || typeof args !== 'string')
    throw invalid(`${where} needs string callId, name and arguments`);
  if (status !== 'done' && status !== 'pending')
    throw invalid(`${where}.status must be "done" or "pending"`);
  if (!isRecord(result) || typeof result['ok'] !== 'boolean')
    throw invalid(`${where}.result must be a tool result`);
  if (approvalRequest !== undefined && !isRecord(approvalRequest))
    throw invalid(`${where}.approvalRequest must be an object`);
  if (inputRequest !== undefined && !isRecord(inputRequest))
    throw invalid(`${where}.inputRequest must be an object`);
  if (credentialRequest !== undefined && !isRecord(credentialRequest))
    throw invalid(`${where}.credentialRequest must be an object`);
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
 * Reads a saved state (the object, or its JSON text), checking its shape, version and API.
 *
 * @throws {KsadkError} `invalid_state` when it is malformed, of another version, or for the other API.
 */
export function readToolLoopState(value: unknown, api: OpenAIApi): ToolLoopState {
  let state = value;
  if (typeof state === 'string') {
    try {
      state = JSON.parse(state) as unknown;
    } catch {
      throw invalid('it is not valid JSON');
    }
  }
  if (!isRecord(state) || state['type'] !== STATE_TYPE)
    throw invalid('it is not a tool loop state');
  if (state['version'] !== TOOL_LOOP_STATE_VERSION)
    throw invalid(
      `version ${JSON.stringify(state['version'])} is not supported (this version reads ${TOOL_LOOP_STATE_VERSION})`,
    );
  if (state['api'] !== api)
    throw invalid(`it was saved by a loop using the ${String(state['api'])} API, not ${api}`);
  const turns = state['turns'];
  if (typeof turns !== 'number' || !Number.isInteger(turns) || turns < 0)
    throw invalid('turns must be a whole number');
  if (!Array.isArray(state['messages'])) throw invalid('messages must be an array');
  const calls = state['calls'];
  if (!Array.isArray(calls) || calls.length === 0 || calls.length > MAX_CALLS)
    throw invalid(`calls must be an array of 1 to ${MAX_CALLS} calls`);
  return {
    type: STATE_TYPE,
    version: TOOL_LOOP_STATE_VERSION,
    api,
    turns,
    messages: state['messages'] as unknown[],
    calls: calls.map(readCall),
  };
}

/** The batch's calls and outcomes from a saved state. */
export function savedBatch(state: ToolLoopState): {
  calls: NormalizedCall[];
  outcomes: BatchedToolCall[];
} {
  return {
    calls: state.calls.map((call) => ({
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
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
