import { failureFor } from '../gateway/results.js';
import type { MCP_ERROR_TYPES } from './error-types.js';

/** Builds a failure of MCP tools: `mcpFailure(errorType, message, extra?)`. */
export const mcpFailure = failureFor<typeof MCP_ERROR_TYPES>();
