import { failureFor } from '../gateway/results.js';
import type { SKILLS_ERROR_TYPES } from './error-types.js';

/** Builds a failure of the skill tools, the Skill Service and the Skill Runtime: `skillsFailure(errorType, message, extra?)`. */
export const skillsFailure = failureFor<typeof SKILLS_ERROR_TYPES>();
