import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of MCP tools, with their retry hints (besides the gateway's own). */
export const MCP_ERROR_TYPES = {
  mcp_unavailable: 'retry',
  mcp_session_expired: 'retry',
  mcp_unauthorized: 'no',
  mcp_tool_error: 'fix',
  mcp_error: 'no',
} as const satisfies ErrorTypeTable;
