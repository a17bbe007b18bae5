import { failureFor } from '../gateway/results.js';
import type { SANDBOX_ERROR_TYPES } from './error-types.js';

/** Builds a failure of sandbox commands and the sandbox tools: `sandboxFailure(errorType, message, extra?)`. */
export const sandboxFailure = failureFor<typeof SANDBOX_ERROR_TYPES>();
