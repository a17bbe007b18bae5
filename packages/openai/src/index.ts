export {
  type OpenAIToolCall,
  type PendingToolCall,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolCallBatch,
  type ToolCallDecision,
  type ToolCallOutcome,
} from './run-tool-calls.js';
export {
  type OpenAIApi,
  type OpenAIToolDefinition,
  type OpenAIToolsOptions,
  toOpenAITools,
} from './to-openai-tools.js';
