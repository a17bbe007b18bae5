// @ksadk/core — tools, the gateway, approvals, results, errors, invocation context, budgets and
// redaction. The rest lives on subpaths that load only what they need: /workspace, /catalog,
// /mcp, /a2a, /memory, /skills, /sandbox, /web, /schema and /adapter (for adapter and store
// authors) and /testing.
export {
  type BudgetCallOptions,
  type BudgetedOutput,
  budgetTextFields,
  budgetToolOutput,
  type PersistedOutput,
  type ResultBudget,
  type ResultBudgetOptions,
  resolveResultBudget,
} from './budget/result-budget.js';
export {
  RESULT_HANDLE_PREFIX,
  type ResultRetention,
  readPersistedOutput,
} from './budget/result-store.js';
export {
  getInvocationContext,
  type InvocationContext,
  type InvocationContextInput,
  runWithInvocationContext,
} from './context/invocation-context.js';
export type {
  ConnectedCredential,
  CredentialAnswer,
  CredentialPrincipal,
} from './credentials/credential-broker.js';
export {
  CREDENTIAL_KEY_ENV,
  CREDENTIAL_PREVIOUS_KEYS_ENV,
  type SealedValue,
} from './credentials/credential-crypto.js';
export {
  type CredentialRequest,
  type CredentialRequiredResult,
  isCredentialRequired,
  type ToolCredential,
} from './credentials/credential-required.js';
export type {
  CredentialKind,
  CredentialSpec,
  CredentialSpecInput,
  OAuthClientConfig,
} from './credentials/credential-spec.js';
export {
  type BoundOAuthClient,
  type CredentialKey,
  type CredentialQuotas,
  type CredentialRequestRecord,
  type CredentialStore,
  createInMemoryCredentialStore,
  type StoredCredential,
} from './credentials/credential-store.js';
export { KsadkError, type KsadkErrorCode, type KsadkErrorOptions } from './errors/ksadk-error.js';
export type {
  ExecutionEnd,
  ExecutionOutcome,
  ExecutionRecord,
  ExecutionStatus,
  ExecutionSummary,
} from './executions/execution-record.js';
export type {
  Awaitable,
  ExecutionBegin,
  ExecutionPage,
  ExecutionQuery,
  ExecutionStore,
} from './executions/execution-store.js';
export {
  createFileExecutionStore,
  type FileExecutionStoreOptions,
} from './executions/file-execution-store.js';
export {
  createInMemoryExecutionStore,
  type InMemoryExecutionStoreOptions,
} from './executions/memory-execution-store.js';
export type {
  ApprovalAuditEntry,
  ApprovalAuditEvent,
  ApprovalAuditHow,
} from './gateway/approval/audit-entry.js';
export {
  type ApprovalDecision,
  decideApproval,
  parseApprovalDecision,
} from './gateway/approval/decision.js';
export type { ApprovalGrant } from './gateway/approval/grant.js';
export type { ApprovalMode } from './gateway/approval/mode.js';
export { policyRequiresApproval } from './gateway/approval/policy.js';
export type {
  StandingGrant,
  StandingGrantCondition,
  StandingGrantMatch,
} from './gateway/approval/standing-grant.js';
export {
  type ApprovalEdit,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  type ApprovalTransitionPatch,
  createInMemoryApprovalStore,
  type InMemoryApprovalStoreOptions,
} from './gateway/approval/store.js';
export {
  approvalStoreFromEnv,
  type SharedStores,
  sharedStoresFromEnv,
} from './gateway/approval/store-from-env.js';
export {
  type ApprovalAuditQuery,
  type ApprovalListStatus,
  type ApprovalPage,
  type ApprovalRequestQuery,
  MAX_PAGE_SIZE,
  type StandingGrantQuery,
} from './gateway/approval/store-queries.js';
export {
  type UndecidedApproval,
  type WaitForApprovalDecisionOptions,
  waitForApprovalDecision,
} from './gateway/approval/wait-for-decision.js';
export {
  type ApprovalDecisionOptions,
  type ApprovalPrincipal,
  createToolGateway,
  type ExecutionDetail,
  type ExecutionListOptions,
  type GatewayCredentialOptions,
  type GatewayExecutionOptions,
  type PendingApprovalOptions,
  type ToolCallOptions,
  type ToolCallOutcome,
  type ToolEndEvent,
  type ToolGateway,
  type ToolGatewayHooks,
  type ToolGatewayOptions,
  type ToolStartEvent,
} from './gateway/create-tool-gateway.js';
export {
  type ApprovalInboxItem,
  type ApprovalRejectedResult,
  type ApprovalRequest,
  type ApprovalRequiredResult,
  type ApprovalUsedResult,
  type ArgumentIssue,
  failureFor,
  isApprovalRejected,
  isApprovalRequired,
  type ModelApprovalRequest,
  type ToolErrorResult,
  type ToolResult,
} from './gateway/results.js';
export type { ToolProgressEvent } from './gateway/run-with-timeout.js';
export type { ErrorTypeTable, RetryHint } from './gateway/tool-error-types.js';
export type { ToolTracingOptions, TracedApproval } from './gateway/tool-tracing.js';
export {
  defineJsonSchemaTool,
  defineTool,
  type JsonSchemaToolDefinition,
  type ToolDefinition,
} from './tool/define-tool.js';
export {
  type AskHuman,
  type HumanInputRequest,
  type InputRequiredResult,
  isInputRequired,
} from './tool/human-input.js';
export type {
  RiskLevel,
  ToolPolicy,
  ToolPolicyInput,
} from './tool/policy.js';
export type {
  JsonSchema,
  JsonSchemaTool,
  Tool,
  ToolExecutionContext,
  ToolProgress,
  ToolResultBudgetOptions,
  ToolRunner,
  ZodTool,
} from './tool/tool.js';
export type { ToolMedia } from './tool/tool-media.js';
export { TOOL_ERROR_TYPES, type ToolErrorType } from './tool-error-types.js';
export { canonicalDigest } from './util/canonical-json.js';
export { redactDeep, redactSecrets, registerSecret } from './util/redact.js';
export { reserveDirectory } from './util/reserved-dirs.js';
export { modelSafeErrorMessage, registerHostPath } from './util/sanitize-message.js';
