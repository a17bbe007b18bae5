export { type A2ATestServer, startA2ATestServer } from './a2a-test-server.js';
export { checkAdapter } from './adapter-conformance/adapter-checks.js';
export type {
  AdapterDecision,
  AdapterDriver,
  AdapterLoad,
  AdapterTurn,
  ConformanceCall,
} from './adapter-conformance/adapter-driver.js';
export {
  createFailureTools,
  FAILURE_KINDS,
  type FailureKind,
  type FailureTools,
} from './failure-tools.js';
export {
  createFakeE2BProvider,
  type FakeE2BCreate,
  type FakeE2BProvider,
  type FakeE2BProviderOptions,
  type FakeE2BRun,
  type FakeE2BSandboxRecord,
} from './fake-e2b-provider.js';
export { approvalStoreOverIpc, serveApprovalStoreOverIpc } from './ipc-approval-store.js';
export {
  type McpServerProcess,
  type McpServerProcessOptions,
  startMcpServerProcess,
} from './mcp-server-process.js';
export {
  type McpTestAuthInfo,
  type McpTestServer,
  type McpTestServerAuth,
  type McpTestServerOptions,
  type McpTestTool,
  startMcpTestServer,
} from './mcp-test-server.js';
export {
  createProfileTool,
  type OAuthTestServer,
  type OAuthTestServerOptions,
  type OAuthTestTokenInfo,
  type ProtectedMcpTestServers,
  startOAuthTestServer,
  startProtectedMcpTestServers,
} from './oauth-test-server.js';
export { type ProtectedMcpHost, startProtectedMcpHost } from './protected-mcp-host.js';
export { createQuestionTool, type QuestionToolBooking } from './question-tool.js';
export {
  createTurnScript,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptedTurn,
  type TurnScript,
} from './scripted-turn.js';
export {
  type SkillServiceRequest,
  type SkillServiceTestServer,
  type SkillServiceTestServerOptions,
  startSkillServiceTestServer,
  type TestSkill,
  type TestSkillSpace,
} from './skill-service.js';
export {
  type ApprovalStoreCheckOptions,
  type ApprovalStoreFactory,
  type ApprovalStoreQuotas,
  type CredentialStoreCheckOptions,
  type CredentialStoreFactory,
  checkApprovalStore,
  checkCredentialStore,
  checkExecutionStore,
  checkMemoryBackend,
  type ExecutionStoreCheckOptions,
  type ExecutionStoreFactory,
  type MemoryBackendCheckOptions,
  type MemoryBackendFactory,
  type MemoryBackendLimits,
} from './store-conformance/index.js';
export { createSkillArchive, createZip, type ZipEntrySpec } from './zip-writer.js';
