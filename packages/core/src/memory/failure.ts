import { failureFor } from '../gateway/results.js';
import type { MEMORY_ERROR_TYPES } from './error-types.js';

/** Builds a failure of the memory and knowledge-base tools: `memoryFailure(errorType, message, extra?)`. */
export const memoryFailure = failureFor<typeof MEMORY_ERROR_TYPES>();
