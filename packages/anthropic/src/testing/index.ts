export type { ScriptedReply, ScriptedToolCall, ScriptedTurn } from '@ksadk/core/testing';
export {
  createScriptedAnthropicFetch,
  type ScriptedAnthropicFetch,
} from './scripted-anthropic-fetch.js';
