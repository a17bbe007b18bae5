import type { ErrorTypeTable, GatewayErrorType } from '../gateway/tool-error-types.js';

/** The `error_type` values of sandbox commands and the sandbox tools, with their retry hints (besides the gateway's own). */
export const SANDBOX_ERROR_TYPES = {
  spawn_failed: 'no',
  killed_by_signal: 'no',
  cwd_not_found: 'fix',
  path_outside_sandbox: 'fix',
  invalid_command: 'fix',
  invalid_env: 'fix',
  session_closed: 'no',
  session_killed: 'no',
  sandbox_error: 'retry',
  // Sandbox tools
  sandbox_disabled: 'no',
  command_required: 'fix',
  command_rejected: 'fix',
  background_not_supported: 'fix',
  code_required: 'fix',
  isolated_sandbox_required: 'no',
  unsupported_language: 'fix',
} as const satisfies ErrorTypeTable;

/** One of {@link SANDBOX_ERROR_TYPES} or the gateway's types: what a sandbox command may fail with. */
export type SandboxErrorType = keyof typeof SANDBOX_ERROR_TYPES | GatewayErrorType;
