import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of the memory and knowledge-base tools, with their retry hints (besides the gateway's own). */
export const MEMORY_ERROR_TYPES = {
  memory_error: 'retry',
  knowledge_base_error: 'retry',
} as const satisfies ErrorTypeTable;
