// @ksadk/core/a2a — remote A2A agents, and as gated tools.
export { type A2AAgentToolOptions, createA2AAgentTool } from './a2a-agent-tool.js';
export {
  type A2AAgentSummary,
  type A2AClient,
  type A2AClientOptions,
  type A2AResult,
  type A2ASendOptions,
  type A2AStreamEvent,
  type A2ATaskState,
  createA2AClient,
} from './a2a-client.js';
