import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of the tool catalogue: the dispatcher and `tool_search` (the Python contract's names), with their retry hints (besides the gateway's own). */
export const CATALOG_ERROR_TYPES = {
  unknown_action: 'fix',
  missing_tool_name: 'fix',
  invalid_arguments_json: 'fix',
  invalid_arguments_type: 'fix',
  not_callable: 'no',
  tool_disabled: 'no',
  dispatcher_self_call: 'fix',
} as const satisfies ErrorTypeTable;
