// @ksadk/core/adapter — for authors of framework adapters and of stores, not for agent builders:
// the approval round trip a framework's human-in-the-loop drives, the tool-call batch a provider
// loop pauses and resumes (and its saved state), model-argument parsing, media
// hand-off, the shape of a failed call, option checks, and the store helpers (outage errors,
// quotas). Every adapter and store package of this repository builds on exactly these.

export { runWithInvocationDefaults } from '../context/invocation-context.js';
export {
  credentialQuotaExceeded,
  resolveCredentialQuotas,
} from '../credentials/credential-store.js';
export { checkOptions, type OptionKeys } from '../errors/check-options.js';
export {
  type RunStoreOperationOptions,
  runStoreOperation,
  type StoreOperation,
  toStoreUnavailableError,
} from '../errors/store-unavailable.js';
export {
  executionMatches,
  executionPageSize,
  MAX_EXECUTION_PAGE,
} from '../executions/execution-listing.js';
export {
  DEFAULT_EXECUTION_QUOTAS,
  type ExecutionQuotaOptions,
  type ExecutionQuotas,
  executionQuotaExceeded,
  resolveExecutionQuotas,
} from '../executions/execution-quotas.js';
export { isRetryOf, outcomeOfRecord } from '../executions/execution-record.js';
export { type DecidedCallOptions, invokeDecidedCall } from '../gateway/approval/decided-call.js';
export {
  type ApprovalPause,
  approvalPauseFor,
  type CredentialPause,
  credentialPauseFor,
} from '../gateway/approval/pause.js';
export {
  type ApprovalQuota,
  type ApprovalQuotaOptions,
  type ApprovalQuotas,
  type AuditRetention,
  approvalQuotaExceeded,
  DEFAULT_APPROVAL_QUOTAS,
  resolveApprovalQuotas,
  type StandingGrantQuota,
} from '../gateway/approval/quotas.js';
export {
  deadlineOf,
  listStatusOf,
  pageSize,
  requestMatches,
} from '../gateway/approval/record-filters.js';
export {
  type ApprovalRoundTripOptions,
  type ApprovalRoundTripOutcome,
  invokeWithApproval,
  PAUSED,
  parseCredentialAnswer,
} from '../gateway/approval/round-trip.js';
export { isActiveGrant } from '../gateway/approval/standing-grant.js';
export {
  type BatchedToolCall,
  type CallRunner,
  type ModelToolCall,
  type PendingToolCall,
  type SavedToolCall,
  type ToolCallBatch,
  type ToolCallDecision,
  toolCallBatch,
} from '../gateway/batch/call-batch.js';
export { type CallRunnerOptions, createCallRunner } from '../gateway/batch/call-runner.js';
export {
  readToolLoopState,
  savedBatch,
  TOOL_LOOP_STATE_VERSION,
  type ToolLoopState,
  toolLoopState,
} from '../gateway/batch/tool-loop-state.js';
export {
  type ArgumentLimits,
  type ModelArgumentsOutcome,
  parseModelArguments,
} from '../gateway/model-arguments.js';
export { failedResult, gatewayFailure } from '../gateway/results.js';
export type { GatewayErrorType } from '../gateway/tool-error-types.js';
export { type HumanInputAnswer, parseHumanInputAnswer } from '../tool/human-input.js';
export {
  describeMediaInResult,
  describeToolMedia,
  MAX_INLINE_MEDIA_CHARS,
  TOOL_MEDIA_FIELD,
  type ToolMediaReference,
  takeToolMedia,
} from '../tool/tool-media.js';
export { visibleText } from '../util/visible-text.js';
