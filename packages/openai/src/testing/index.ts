export {
  createScriptedOpenAIFetch,
  type ScriptedOpenAIFetch,
  type ScriptedOpenAITurn,
} from './scripted-openai-fetch.js';
