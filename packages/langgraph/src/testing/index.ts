export type { ScriptedReply, ScriptedToolCall, ScriptedTurn } from '@ksadk/core/testing';
export { ScriptedChatModel } from './scripted-chat-model.js';
