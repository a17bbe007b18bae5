export type { McpApprovalOptions } from './approval-over-mcp.js';
export { questionOf } from './approval-over-mcp.js';
export { callResultOf } from './call-result.js';
export {
  createKsadkMcpServer,
  type KsadkMcpPrincipal,
  type KsadkMcpServerOptions,
} from './create-ksadk-mcp-server.js';
export {
  createKsadkMcpHttpHandler,
  type KsadkMcpHttpHandler,
  type KsadkMcpHttpOptions,
  type ServeKsadkMcpHttpOptions,
  serveKsadkMcpHttp,
} from './http-server.js';
export { annotationsOf, isReadOnly, mcpToolOf } from './tool-listing.js';
