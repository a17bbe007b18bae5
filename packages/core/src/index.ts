export { KsadkError, type KsadkErrorCode, type KsadkErrorOptions } from './errors/ksadk-error.js';

export { RISK_LEVELS, normalizeToolPolicy, type RiskLevel, type ToolPolicy, type ToolPolicyInput } from './tool/policy.js';
export type {
  JsonSchema,
  JsonSchemaTool,
  Tool,
  ToolExecutionContext,
  ToolResultBudgetOptions,
  ZodTool,
} from './tool/tool.js';
export {
  TOOL_NAME_PATTERN,
  defineExternalTool,
  defineTool,
  type ExternalToolDefinition,
  type ToolDefinition,
} from './tool/define-tool.js';

export {
  getInvocationContext,
  getInvocationContextOrEmpty,
  runWithInvocationContext,
  type InvocationContext,
  type InvocationContextInput,
} from './context/invocation-context.js';

export {
  APPROVAL_MODES,
  APPROVAL_MODE_ENV,
  approvalModeFromEnv,
  parseApprovalMode,
  type ApprovalMode,
} from './gateway/approval-mode.js';
export { policyRequiresApproval } from './gateway/decide-approval.js';
export { APPROVAL_SECRET_ENV, type ApprovalGrant } from './gateway/approval-grant.js';
export {
  createInMemoryApprovalStore,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  type InMemoryApprovalStoreOptions,
} from './gateway/approval-store.js';
export {
  isApprovalRejected,
  isApprovalRequired,
  toolError,
  type ApprovalRejectedResult,
  type ApprovalRequest,
  type ApprovalRequiredResult,
  type ArgumentIssue,
  type ToolErrorResult,
  type ToolResult,
} from './gateway/results.js';
export {
  createToolGateway,
  type ApprovalDecisionOptions,
  type ToolCallOptions,
  type ToolCallOutcome,
  type ToolEndEvent,
  type ToolGateway,
  type ToolGatewayHooks,
  type ToolGatewayOptions,
  type ToolStartEvent,
} from './gateway/create-tool-gateway.js';

export {
  RESULT_BUDGET_ENV,
  budgetTextFields,
  budgetToolOutput,
  resolveResultBudget,
  type BudgetCallOptions,
  type BudgetedOutput,
  type PersistedOutput,
  type ResultBudget,
  type ResultBudgetOptions,
} from './budget/result-budget.js';

export { toolJsonSchema } from './schema/canonical-schema.js';
export { toOpenAIStrictSchema, type OpenAISchemaResult } from './schema/openai-strict.js';
export { normalizeStrictInput } from './schema/normalize-strict-input.js';
export { toGeminiSchema } from './schema/gemini-schema.js';
export {
  geminiToolSchema,
  langChainToolSchema,
  normalizeOpenAIArguments,
  openAIToolSchema,
  type OpenAIToolSchemaOptions,
} from './schema/tool-schemas.js';
export {
  createToolNameRegistry,
  sanitizeToolName,
  type ToolNameConflict,
  type ToolNameRegistry,
} from './schema/tool-names.js';

export { canonicalDigest, canonicalJson } from './util/canonical-json.js';
export { modelSafeErrorMessage, redactSecrets } from './util/sanitize-message.js';
