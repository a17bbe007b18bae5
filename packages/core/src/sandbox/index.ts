/**
 * The execution layer and the sandbox tools (`@ksadk/core/sandbox`): backends that create sessions, sessions that
 * hold files and run commands — `local_process` (not isolated; trusted local development),
 * `bubblewrap` (Linux namespaces), `e2b` (a cloud sandbox), `disabled` — and the one resolver
 * that picks the backend from the configuration.
 *
 * @packageDocumentation
 */

export {
  type BubblewrapBackendOptions,
  createBubblewrapBackend,
} from './bubblewrap-backend.js';
export {
  type CommandPolicyDecision,
  checkCommandPolicy,
} from './command-policy.js';
export {
  type CreateSandboxBackendOptions,
  createSandboxBackend,
} from './create-sandbox-backend.js';
export { createE2BBackend, type E2BBackendOptions } from './e2b-backend.js';
export {
  createE2BSdkProvider,
  type E2BCommandResult,
  type E2BCreateOptions,
  type E2BEntry,
  type E2BProvider,
  type E2BRunOptions,
  type E2BSandbox,
} from './e2b-provider.js';
export {
  createLocalProcessBackend,
  type LocalBackendOptions,
  type LocalProcessBackendOptions,
} from './local-process-backend.js';
export { quoteShellCommand } from './posix-quote.js';
export {
  type ResolvedSandboxBackend,
  type ResolveSandboxBackendOptions,
  resolveSandboxBackend,
  type SandboxPurpose,
} from './resolve-backend.js';
export type {
  SandboxBackend,
  SandboxBackendName,
  SandboxCommand,
  SandboxCommandResult,
  SandboxSession,
  SandboxSessionOptions,
} from './sandbox-backend.js';
export {
  createSandboxSessionPool,
  type SandboxLease,
  type SandboxPoolEntry,
  type SandboxSessionPool,
  type SandboxSessionPoolOptions,
} from './session-pool.js';
export {
  createSandboxToolset,
  type SandboxToolSettings,
  type SandboxToolset,
  type SandboxToolsetOptions,
  type SandboxWorkspace,
  type WorkspaceSyncLimits,
  type WorkspaceSyncReport,
} from './tools/index.js';
