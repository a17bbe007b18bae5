// @ksadk/postgres — KsADK stores on PostgreSQL: a shared ApprovalStore, a CredentialStore, an
// ExecutionStore, a MemoryBackend, a KnowledgeBase, and the migrations they run on first use.
export {
  LATEST_MIGRATION,
  type MigratePostgresOptions,
  type MigrationOutcome,
  migratePostgres,
} from './migrations.js';
export {
  createPostgresApprovalStore,
  type PostgresApprovalStore,
  type PostgresApprovalStoreOptions,
} from './postgres-approval-store.js';
export type { PostgresConnectionOptions } from './postgres-connection.js';
export {
  createPostgresCredentialStore,
  type PostgresCredentialStore,
  type PostgresCredentialStoreOptions,
} from './postgres-credential-store.js';
export {
  createPostgresExecutionStore,
  type PostgresExecutionStore,
  type PostgresExecutionStoreOptions,
} from './postgres-execution-store.js';
export {
  createPostgresKnowledgeBase,
  type KnowledgeDocument,
  type PostgresKnowledgeBase,
  type PostgresKnowledgeBaseOptions,
} from './postgres-knowledge-base.js';
export {
  createPostgresMemoryBackend,
  type PostgresMemoryBackend,
  type PostgresMemoryBackendOptions,
} from './postgres-memory-backend.js';
export type { EmbedFunction } from './vector-support.js';
