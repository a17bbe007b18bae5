/** Whether a model may usefully retry a failure: `retry` as is, `fix` after changing its call, `no` not without the user or the host. */
export type RetryHint = 'retry' | 'fix' | 'no';

/** One capability's `error_type` values, each with its {@link RetryHint}. */
export type ErrorTypeTable = Readonly<Record<string, RetryHint>>;

/**
 * The `error_type` values the gateway and the layers below every capability return — the
 * gateway's own, every `KsadkError` code (a thrown one becomes a result through `failedResult`)
 * and the few that several capabilities share. Each capability holds its own table beside it;
 * `TOOL_ERROR_TYPES` merges them all.
 */
export const GATEWAY_ERROR_TYPES = {
  invalid_arguments: 'fix',
  approval_required: 'no',
  approval_rejected: 'no',
  approval_already_used: 'no',
  approval_expired: 'no',
  approval_policy_failed: 'no',
  standing_grant_not_allowed: 'no',
  standing_grant_not_found: 'no',
  credential_required: 'no',
  credential_not_found: 'no',
  credential_refused: 'no',
  credential_quota_exceeded: 'no',
  input_required: 'no',
  input_declined: 'no',
  approval_not_found: 'no',
  approval_quota_exceeded: 'no',
  tool_timeout: 'retry',
  outcome_unknown: 'no',
  call_id_conflict: 'fix',
  already_executed: 'no',
  execution_quota_exceeded: 'retry',
  tool_aborted: 'no',
  tool_error: 'no',
  result_too_large: 'fix',
  internal: 'no',
  invalid_config: 'no',
  unsupported: 'no',
  invalid_tool: 'no',
  invalid_state: 'no',
  store_unavailable: 'retry',
  service_unavailable: 'retry',
  invalid_package: 'no',
  setup: 'no',
  sandbox_busy: 'retry',
  // Shared by several capabilities
  query_required: 'fix',
  too_large: 'no',
  /** A model called a tool it was not given (the dispatcher, every adapter's runner). */
  unknown_tool: 'fix',
  permission_denied: 'no',
  no_space_left: 'no',
} as const satisfies ErrorTypeTable;

/** One of {@link GATEWAY_ERROR_TYPES}. */
export type GatewayErrorType = keyof typeof GATEWAY_ERROR_TYPES;
