export { type A2AAgentToolOptions, createA2AAgentTool } from './a2a/a2a-agent-tool.js';
export {
  type A2AAgentSummary,
  type A2AClient,
  type A2AClientOptions,
  type A2AResult,
  type A2ASendOptions,
  type A2AStreamEvent,
  type A2ATaskState,
  createA2AClient,
} from './a2a/a2a-client.js';
export {
  type BudgetCallOptions,
  type BudgetedOutput,
  budgetTextFields,
  budgetToolOutput,
  type PersistedOutput,
  RESULT_BUDGET_ENV,
  type ResultBudget,
  type ResultBudgetOptions,
  resolveResultBudget,
} from './budget/result-budget.js';
export {
  DEFAULT_RESULT_RETENTION,
  RESULT_HANDLE_PREFIX,
  type ResultRetention,
} from './budget/result-store.js';
export {
  type A2AAgentConfig,
  type AgentAssembly,
  type AssembleAgentToolsOptions,
  type AssembleFromEnvOptions,
  assembleAgentTools,
  assembleAgentToolsFromEnv,
  type SkillsSlot,
  type ToolSource,
} from './catalog/assemble-agent-tools.js';
export {
  BUILTIN_TOOLS_ENV,
  type BuiltinToolsMode,
  type BuiltinToolsProfile,
  parseBuiltinToolsMode,
  parseBuiltinToolsProfile,
} from './catalog/catalog-modes.js';
export { DISPATCHER_ALIAS, DISPATCHER_NAME, TOOL_SEARCH_NAME } from './catalog/catalog-tools.js';
export type { ExternalToolSpec, RegisterExternalToolsOptions } from './catalog/external-tools.js';
export {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from './catalog/load-agent-tools.js';
export {
  createToolCatalog,
  DEFAULT_GROUP_ORDER,
  FOCUSED_TOOL_NAMES,
  type ToolCatalog,
  type ToolCatalogOptions,
  type ToolSelection,
} from './catalog/tool-catalog.js';
export type { ToolDescriptor } from './catalog/tool-descriptor.js';
export {
  getInvocationContext,
  getInvocationContextOrEmpty,
  type InvocationContext,
  type InvocationContextInput,
  runWithInvocationContext,
  runWithInvocationDefaults,
} from './context/invocation-context.js';
export { checkOptions } from './errors/check-options.js';
export { KsadkError, type KsadkErrorCode, type KsadkErrorOptions } from './errors/ksadk-error.js';
export {
  type ApprovalDecision,
  decideApproval,
  parseApprovalDecision,
} from './gateway/approval-decision.js';
export { APPROVAL_SECRET_ENV, type ApprovalGrant } from './gateway/approval-grant.js';
export {
  APPROVAL_MODE_ENV,
  APPROVAL_MODES,
  type ApprovalMode,
  approvalModeFromEnv,
  parseApprovalMode,
} from './gateway/approval-mode.js';
export { type ApprovalPause, approvalPauseFor } from './gateway/approval-pause.js';
export {
  type ApprovalRoundTripOptions,
  type ApprovalRoundTripOutcome,
  invokeWithApproval,
  PAUSED,
} from './gateway/approval-round-trip.js';
export {
  type ApprovalQuota,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  createInMemoryApprovalStore,
  DEFAULT_APPROVAL_QUOTAS,
  type InMemoryApprovalStoreOptions,
} from './gateway/approval-store.js';
export {
  type ApprovalDecisionOptions,
  type ApprovalPrincipal,
  createToolGateway,
  type ToolCallOptions,
  type ToolCallOutcome,
  type ToolEndEvent,
  type ToolGateway,
  type ToolGatewayHooks,
  type ToolGatewayOptions,
  type ToolStartEvent,
} from './gateway/create-tool-gateway.js';
export { policyRequiresApproval } from './gateway/decide-approval.js';
export {
  type ArgumentLimits,
  DEFAULT_ARGUMENT_LIMITS,
  FORBIDDEN_ARGUMENT_KEYS,
  type ModelArgumentsOutcome,
  parseModelArguments,
} from './gateway/model-arguments.js';
export {
  type ApprovalRejectedResult,
  type ApprovalRequest,
  type ApprovalRequiredResult,
  type ArgumentIssue,
  isApprovalRejected,
  isApprovalRequired,
  type ModelApprovalRequest,
  type ToolErrorResult,
  type ToolResult,
  toolError,
} from './gateway/results.js';
export { failedResult } from './gateway/run-with-timeout.js';
export { TOOL_ERROR_TYPES, type ToolErrorType } from './gateway/tool-error-types.js';
export {
  type LoadMcpToolsetsOptions,
  loadMcpToolsets,
  loadMcpToolsetsFromEnv,
  type McpLoadResult,
} from './mcp/load-mcp-toolsets.js';
export {
  loadMcpServerConfigsFromEnv,
  MCP_ENV,
  type McpConfigProblem,
  type McpConfigResult,
  type McpServerConfig,
  mcpDedupeKey,
  mcpToolsEnabled,
  parseMcpServerConfigs,
} from './mcp/mcp-config.js';
export {
  createMcpToolset,
  type McpToolProblem,
  type McpToolset,
  type McpToolsetOptions,
  mapMcpCallResult,
} from './mcp/mcp-toolset.js';
export type {
  KnowledgeBase,
  KnowledgePassage,
  MemoryBackend,
  MemoryEntry,
  MemoryRecord,
  MemoryScope,
  MemorySearchOptions,
  ScoredMemory,
} from './memory/memory-backend.js';
export {
  createFileMemoryBackend,
  createInMemoryMemoryBackend,
  type MemoryStoreLimits,
} from './memory/memory-stores.js';
export { toolJsonSchema } from './schema/canonical-schema.js';
export { toGeminiSchema } from './schema/gemini-schema.js';
export { normalizeStrictInput } from './schema/normalize-strict-input.js';
export { type OpenAISchemaResult, toOpenAIStrictSchema } from './schema/openai-strict.js';
export {
  createToolNameRegistry,
  sanitizeToolName,
  type ToolNameConflict,
  type ToolNameRegistry,
} from './schema/tool-names.js';
export {
  geminiToolSchema,
  langChainToolSchema,
  normalizeOpenAIArguments,
  type OpenAIToolSchemaOptions,
  openAIToolSchema,
} from './schema/tool-schemas.js';
export {
  defineExternalTool,
  defineTool,
  type ExternalToolDefinition,
  TOOL_NAME_PATTERN,
  type ToolDefinition,
} from './tool/define-tool.js';
export {
  normalizeToolPolicy,
  RISK_LEVELS,
  type RiskLevel,
  type ToolPolicy,
  type ToolPolicyInput,
} from './tool/policy.js';
export type {
  JsonSchema,
  JsonSchemaTool,
  Tool,
  ToolExecutionContext,
  ToolResultBudgetOptions,
  ZodTool,
} from './tool/tool.js';
export {
  createMemoryToolset,
  MEMORY_ENV,
  type MemoryFromEnv,
  type MemoryToolsetOptions,
  memoryToolsetFromEnv,
} from './toolsets/memory/index.js';
export {
  createWorkspaceToolset,
  type WorkspaceOptions,
  type WorkspaceToolset,
} from './toolsets/workspace/index.js';
export type { ReadRecord, ReadStateStore } from './toolsets/workspace/read-state.js';
export type { WorkspaceRootOption } from './toolsets/workspace/workspace-root.js';
export type { WorkspaceRuntime } from './toolsets/workspace/workspace-runtime.js';
export { canonicalDigest, canonicalJson } from './util/canonical-json.js';
export { redactSecrets, registerSecret } from './util/redact.js';
export { reserveDirectory } from './util/reserved-dirs.js';
export { modelSafeErrorMessage, registerHostPath } from './util/sanitize-message.js';
