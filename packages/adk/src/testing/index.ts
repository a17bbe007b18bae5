export { ScriptedLlm, type ScriptedTurn } from './scripted-llm.js';
