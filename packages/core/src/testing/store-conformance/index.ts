// Conformance suites for store implementations (ApprovalStore, CredentialStore, ExecutionStore,
// MemoryBackend): framework-neutral,
// they resolve to a list of failures.
export {
  type ApprovalStoreCheckOptions,
  type ApprovalStoreFactory,
  type ApprovalStoreQuotas,
  checkApprovalStore,
} from './approval-store-checks.js';
export {
  type CredentialStoreCheckOptions,
  type CredentialStoreFactory,
  checkCredentialStore,
} from './credential-store-checks.js';
export {
  checkExecutionStore,
  type ExecutionStoreCheckOptions,
  type ExecutionStoreFactory,
} from './execution-store-checks.js';
export {
  checkMemoryBackend,
  type MemoryBackendCheckOptions,
  type MemoryBackendFactory,
  type MemoryBackendLimits,
} from './memory-backend-checks.js';
