import { failureFor } from '../gateway/results.js';
import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of MCP tools, with their retry hints (besides the gateway's own). */
export const MCP_ERROR_TYPES = {
  mcp_unavailable: 'retry',
  mcp_session_expired: 'retry',
  mcp_tool_error: 'fix',
  mcp_error: 'no',
} as const satisfies ErrorTypeTable;

/** Builds a failure of MCP tools: `mcpFailure(errorType, message, extra?)`. */
export const mcpFailure = failureFor(MCP_ERROR_TYPES);
