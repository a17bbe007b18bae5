export type { ScriptedReply, ScriptedToolCall, ScriptedTurn } from '@ksadk/core/testing';
export { createScriptedOpenAIFetch, type ScriptedOpenAIFetch } from './scripted-openai-fetch.js';
