export {
  type McpTestServer,
  type McpTestServerOptions,
  type McpTestTool,
  startMcpTestServer,
} from './mcp-test-server.js';
