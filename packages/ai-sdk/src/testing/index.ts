export type { ScriptedReply, ScriptedToolCall, ScriptedTurn } from '@ksadk/core/testing';
export { createScriptedLanguageModel } from './scripted-language-model.js';
