export type { ScriptedReply, ScriptedToolCall, ScriptedTurn } from '@ksadk/core/testing';
export { ScriptedLlm } from './scripted-llm.js';
