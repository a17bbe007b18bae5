/**
 * Every `error_type` KsADK's gateway and built-in tools return to a model, with whether the model
 * may usefully retry (`retry`: as is; `fix`: after changing its call; `no`: not without the user
 * or the host). Documented in docs/tools.md; a test keeps the code, this list and the docs equal.
 */
export const TOOL_ERROR_TYPES = {
  // The gateway
  invalid_arguments: 'fix',
  approval_required: 'no',
  approval_rejected: 'no',
  approval_not_found: 'no',
  approval_quota_exceeded: 'no',
  tool_timeout: 'retry',
  tool_aborted: 'no',
  tool_error: 'no',
  result_too_large: 'fix',
  internal: 'no',
  invalid_config: 'no',
  unsupported: 'no',
  invalid_tool: 'no',
  // Catalogue: dispatcher and tool_search (the Python contract's names)
  unknown_tool: 'fix',
  unknown_action: 'fix',
  missing_tool_name: 'fix',
  invalid_arguments_json: 'fix',
  invalid_arguments_type: 'fix',
  not_callable: 'no',
  tool_disabled: 'no',
  dispatcher_self_call: 'fix',
  query_required: 'fix',
  // Workspace
  path_outside_workspace: 'fix',
  invalid_path: 'fix',
  not_found: 'fix',
  not_a_directory: 'fix',
  not_a_file: 'fix',
  is_a_directory: 'fix',
  file_too_large: 'no',
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
  // MCP
  mcp_unavailable: 'retry',
  mcp_session_expired: 'retry',
  mcp_tool_error: 'fix',
  mcp_error: 'no',
  // A2A
  a2a_error: 'retry',
  a2a_request_too_large: 'fix',
  a2a_response_too_large: 'no',
  a2a_task_failed: 'no',
  a2a_task_canceled: 'no',
  a2a_task_rejected: 'no',
  a2a_task_incomplete: 'retry',
  // Memory and knowledge
  memory_error: 'retry',
  knowledge_base_error: 'retry',
} as const satisfies Record<string, 'retry' | 'fix' | 'no'>;

/** One of {@link TOOL_ERROR_TYPES}: the `error_type` values KsADK itself returns. */
export type ToolErrorType = keyof typeof TOOL_ERROR_TYPES;
