// @ksadk/core/mcp — MCP servers as gated KsADK tools.
export {
  type LoadMcpToolsetsOptions,
  loadMcpToolsets,
  loadMcpToolsetsFromEnv,
  type McpLoadResult,
} from './load-mcp-toolsets.js';
export {
  type McpConfigProblem,
  type McpConfigResult,
  type McpServerConfig,
  type McpServerOptions,
  parseMcpServerConfigs,
} from './mcp-config.js';
export {
  createMcpToolset,
  type McpToolProblem,
  type McpToolset,
  type McpToolsetOptions,
} from './mcp-toolset.js';
