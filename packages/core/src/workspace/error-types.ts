import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of the workspace tools, with their retry hints (besides the gateway's own). */
export const WORKSPACE_ERROR_TYPES = {
  path_outside_workspace: 'fix',
  invalid_path: 'fix',
  not_found: 'fix',
  not_a_directory: 'fix',
  not_a_file: 'fix',
  is_a_directory: 'fix',
  not_utf8_text: 'no',
  already_exists: 'fix',
  duplicate_path: 'fix',
  directory_not_empty: 'fix',
  refuse_root: 'fix',
  write_failed: 'retry',
  invalid_range: 'fix',
  file_not_read: 'fix',
  file_modified_since_read: 'fix',
  missing_old_text: 'fix',
  snippet_not_found: 'fix',
  ambiguous_edit: 'fix',
  invalid_edit: 'fix',
  invalid_regex: 'fix',
  regex_too_complex: 'fix',
  invalid_glob: 'fix',
  syntax_check_unavailable: 'no',
} as const satisfies ErrorTypeTable;

/** One of {@link WORKSPACE_ERROR_TYPES}. */
export type WorkspaceErrorType = keyof typeof WORKSPACE_ERROR_TYPES;
