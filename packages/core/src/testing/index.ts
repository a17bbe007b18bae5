export { type A2ATestServer, startA2ATestServer } from './a2a-test-server.js';
export {
  createFailureTools,
  FAILURE_KINDS,
  type FailureKind,
  type FailureTools,
} from './failure-tools.js';
export {
  type McpTestServer,
  type McpTestServerOptions,
  type McpTestTool,
  startMcpTestServer,
} from './mcp-test-server.js';
export {
  createTurnScript,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptedTurn,
  type TurnScript,
} from './scripted-turn.js';
