import { failureFor } from '../gateway/results.js';
import type { CATALOG_ERROR_TYPES } from './error-types.js';

/** Builds a failure of the tool catalogue: the dispatcher and `tool_search` (the Python contract's names): `catalogFailure(errorType, message, extra?)`. */
export const catalogFailure = failureFor<typeof CATALOG_ERROR_TYPES>();
