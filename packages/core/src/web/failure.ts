import { failureFor } from '../gateway/results.js';
import type { WEB_ERROR_TYPES } from './error-types.js';

/** Builds a failure of the web tools: `webFailure(errorType, message, extra?)`. */
export const webFailure = failureFor<typeof WEB_ERROR_TYPES>();
