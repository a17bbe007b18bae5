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
  type McpHttpServerConfig,
  type McpHttpServerOptions,
  type McpServerCommonOptions,
  type McpServerConfig,
  type McpServerOptions,
  type McpServersObject,
  type McpStdioServerConfig,
  type McpStdioServerOptions,
  parseMcpServerConfigs,
} from './mcp-config.js';
export type { McpProcessExit, McpToolsetDiagnostics } from './mcp-connection.js';
export type { McpOAuthOptions } from './mcp-oauth-config.js';
export type {
  McpLogEvent,
  McpSamplingRequest,
  McpSamplingResult,
  McpServerRequestOptions,
} from './mcp-server-requests.js';
export {
  createMcpToolset,
  type McpPrompt,
  type McpResource,
  type McpToolProblem,
  type McpToolset,
  type McpToolsetOptions,
} from './mcp-toolset.js';
export type { McpStdioSandboxConfig, McpStdioSandboxOption } from './stdio-sandbox-config.js';
