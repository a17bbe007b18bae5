export type { ScriptedReply, ScriptedToolCall, ScriptedTurn } from '@ksadk/core/testing';
export { createScriptedModel, type ScriptedModel } from './scripted-model.js';
