export {
  createToolLoop,
  type LoadOpenAIToolsOptions,
  loadOpenAITools,
  type OpenAIToolsLoad,
  resumeToolLoop,
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
  SavedToolCall,
  ToolCallBatch,
  ToolCallDecision,
} from './tool-call-batch.js';
export {
  readToolLoopState,
  TOOL_LOOP_STATE_VERSION,
  type ToolLoopState,
} from './tool-loop-state.js';
