import { A2A_ERROR_TYPES } from './a2a/error-types.js';
import { CATALOG_ERROR_TYPES } from './catalog/error-types.js';
import { GATEWAY_ERROR_TYPES } from './gateway/tool-error-types.js';
import { MCP_ERROR_TYPES } from './mcp/error-types.js';
import { MEMORY_ERROR_TYPES } from './memory/error-types.js';
import { SANDBOX_ERROR_TYPES } from './sandbox/error-types.js';
import { SKILLS_ERROR_TYPES } from './skills/error-types.js';
import { WEB_ERROR_TYPES } from './web/error-types.js';
import { WORKSPACE_ERROR_TYPES } from './workspace/error-types.js';

/**
 * Every `error_type` KsADK's gateway and built-in tools return to a model, with whether the model
 * may usefully retry (`retry`: as is; `fix`: after changing its call; `no`: not without the user
 * or the host): the gateway's table and each capability's, merged. Documented in docs/tools.md;
 * a test keeps the tables, this merge and the docs equal.
 */
export const TOOL_ERROR_TYPES = {
  ...GATEWAY_ERROR_TYPES,
  ...CATALOG_ERROR_TYPES,
  ...WORKSPACE_ERROR_TYPES,
  ...MCP_ERROR_TYPES,
  ...A2A_ERROR_TYPES,
  ...MEMORY_ERROR_TYPES,
  ...SKILLS_ERROR_TYPES,
  ...SANDBOX_ERROR_TYPES,
  ...WEB_ERROR_TYPES,
} as const;

/** One of {@link TOOL_ERROR_TYPES}: the `error_type` values KsADK itself returns. */
export type ToolErrorType = keyof typeof TOOL_ERROR_TYPES;
