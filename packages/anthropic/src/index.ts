export {
  createToolLoop,
  resumeToolLoop,
  type ToolLoop,
  type ToolLoopOptions,
  type ToolLoopResult,
  type ToolLoopState,
} from './create-tool-loop.js';
export {
  type AnthropicToolsLoad,
  type LoadAnthropicToolsOptions,
  loadAnthropicTools,
} from './load-anthropic-tools.js';
export { type RunToolUsesOptions, runToolUses } from './run-tool-uses.js';
export { toAnthropicTools } from './to-anthropic-tools.js';
export type {
  BatchedToolCall,
  PendingToolCall,
  SavedToolCall,
  ToolCallDecision,
  ToolUseBatch,
} from './tool-results.js';
