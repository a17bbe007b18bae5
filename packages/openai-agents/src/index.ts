export { approvalRequestOf, settleRejections } from './interruptions.js';
export {
  type LoadOpenAIAgentsToolsOptions,
  loadOpenAIAgentsTools,
  type OpenAIAgentsToolsLoad,
} from './load-openai-agents-tools.js';
export { modelOutputOf, type OpenAIAgentsToolOutput } from './model-output.js';
export {
  type OpenAIAgentsTool,
  type OpenAIAgentsToolsOptions,
  toOpenAIAgentsTools,
} from './to-openai-agents-tools.js';
