export { ScriptedChatModel, type ScriptedReply } from './scripted-chat-model.js';
