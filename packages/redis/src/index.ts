// @ksadk/redis — KsADK stores on Redis: a shared ApprovalStore, a CredentialStore, an
// ExecutionStore and a MemoryBackend.
export {
  createRedisApprovalStore,
  type RedisApprovalStore,
  type RedisApprovalStoreOptions,
} from './redis-approval-store.js';
export type { RedisConnectionOptions } from './redis-connection.js';
export {
  createRedisCredentialStore,
  type RedisCredentialStore,
  type RedisCredentialStoreOptions,
} from './redis-credential-store.js';
export {
  createRedisExecutionStore,
  type RedisExecutionStore,
  type RedisExecutionStoreOptions,
} from './redis-execution-store.js';
export {
  createRedisMemoryBackend,
  type RedisMemoryBackend,
  type RedisMemoryBackendOptions,
} from './redis-memory-backend.js';
