import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of remote A2A agents, with their retry hints (besides the gateway's own). */
export const A2A_ERROR_TYPES = {
  a2a_error: 'retry',
  request_too_large: 'fix',
  a2a_task_failed: 'no',
  a2a_task_canceled: 'no',
  a2a_task_rejected: 'no',
  a2a_task_incomplete: 'retry',
} as const satisfies ErrorTypeTable;
