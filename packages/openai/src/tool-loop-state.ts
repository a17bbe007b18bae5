import {
  readToolLoopState as readState,
  type ToolLoopState as SavedState,
  TOOL_LOOP_STATE_VERSION,
} from '@ksadk/core/adapter';
import type { OpenAIApi } from './to-openai-tools.js';

export { TOOL_LOOP_STATE_VERSION };

/** What OpenAI tool loops write in a saved state's `type`. */
export const OPENAI_TOOL_LOOP = 'ksadk.openai.tool_loop';

/**
 * A paused OpenAI tool loop as plain JSON: the conversation so far (Chat Completions messages or
 * Responses items) and the turn's calls with their outcomes. Save it anywhere and resume it in any
 * process with `loop.resume(state, decisions)` or `resumeToolLoop`. It holds no credential:
 * approvals stay bound by the gateway's store, so a state edited in transit can only produce a
 * fresh approval request, never an unapproved call. It does carry the conversation, so store it as
 * you store conversations.
 */
export type ToolLoopState = SavedState<typeof OPENAI_TOOL_LOOP, OpenAIApi>;

/**
 * Reads a saved state (the object, or its JSON text), checking its shape, version and API.
 *
 * @throws {KsadkError} `invalid_state` when it is malformed, of another version, or for the other API.
 */
export function readToolLoopState(value: unknown, api: OpenAIApi): ToolLoopState {
  return readState(value, { type: OPENAI_TOOL_LOOP, api });
}
