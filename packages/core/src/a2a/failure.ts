import { failureFor } from '../gateway/results.js';
import type { A2A_ERROR_TYPES } from './error-types.js';

/** Builds a failure of remote A2A agents: `a2aFailure(errorType, message, extra?)`. */
export const a2aFailure = failureFor<typeof A2A_ERROR_TYPES>();
