// @ksadk/core/mcp — MCP servers as gated KsADK tools.
export {
  type LoadMcpToolsetsOptions,
  loadMcpToolsets,
  loadMcpToolsetsFromEnv,
  type McpLoadResult,
} from './load-mcp-toolsets.js';
export {
  loadMcpServerConfigsFromEnv,
  MCP_ENV,
  type McpConfigProblem,
  type McpConfigResult,
  type McpServerConfig,
  type McpServerOptions,
  mcpDedupeKey,
  mcpToolsEnabled,
  parseMcpServerConfigs,
} from './mcp-config.js';
export {
  createMcpToolset,
  type McpToolProblem,
  type McpToolset,
  type McpToolsetOptions,
  mapMcpCallResult,
} from './mcp-toolset.js';
