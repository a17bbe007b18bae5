import { failureFor } from '../gateway/results.js';
import type { WORKSPACE_ERROR_TYPES } from './error-types.js';

/** Builds a failure of the workspace tools: `workspaceFailure(errorType, message, extra?)`. */
export const workspaceFailure = failureFor<typeof WORKSPACE_ERROR_TYPES>();
