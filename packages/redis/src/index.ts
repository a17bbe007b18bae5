// @ksadk/redis — KsADK stores on Redis: a shared ApprovalStore and a MemoryBackend.
export {
  createRedisApprovalStore,
  type RedisApprovalStore,
  type RedisApprovalStoreOptions,
} from './redis-approval-store.js';
export type { RedisConnectionOptions } from './redis-connection.js';
export {
  createRedisMemoryBackend,
  type RedisMemoryBackend,
  type RedisMemoryBackendOptions,
} from './redis-memory-backend.js';
