export {
  createToolLoop,
  type LoadOpenAIToolsOptions,
  loadOpenAITools,
  type OpenAIToolsLoad,
  type ToolLoop,
  type ToolLoopMessages,
  type ToolLoopOptions,
  type ToolLoopResult,
} from './create-tool-loop.js';
export {
  type BatchedToolCall,
  type OpenAIToolCall,
  type PendingToolCall,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolCallBatch,
  type ToolCallDecision,
} from './run-tool-calls.js';
export {
  type OpenAIApi,
  type OpenAIToolDefinition,
  type OpenAIToolsOptions,
  toOpenAITools,
} from './to-openai-tools.js';
