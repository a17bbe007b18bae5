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
  type OpenAIToolCall,
  type RunToolCallsOptions,
  runToolCalls,
} from './run-tool-calls.js';
export {
  type OpenAIApi,
  type OpenAIToolDefinition,
  type OpenAIToolsOptions,
  toOpenAITools,
} from './to-openai-tools.js';
export type {
  BatchedToolCall,
  PendingToolCall,
  ToolCallBatch,
  ToolCallDecision,
} from './tool-call-batch.js';
