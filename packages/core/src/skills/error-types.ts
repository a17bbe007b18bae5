import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of the skill tools, the Skill Service and the Skill Runtime, with their retry hints (besides the gateway's own). */
export const SKILLS_ERROR_TYPES = {
  skill_error: 'no',
  skill_not_found: 'fix',
  space_not_configured: 'fix',
  resource_not_found: 'fix',
  binary_file: 'no',
  skill_service_error: 'no',
  skill_service_timeout: 'retry',
  skill_service_unreachable: 'retry',
  download_failed: 'retry',
  download_timeout: 'retry',
  unsafe_archive: 'no',
  hash_mismatch: 'no',
  invalid_skill_package: 'no',
  cache_busy: 'retry',
  // Skill Runtime
  skill_runtime_disabled: 'no',
  workflow_failed: 'no',
  no_workflow: 'fix',
  invalid_skill_runtime_result: 'no',
} as const satisfies ErrorTypeTable;

/** One of {@link SKILLS_ERROR_TYPES}. */
export type SkillsErrorType = keyof typeof SKILLS_ERROR_TYPES;
