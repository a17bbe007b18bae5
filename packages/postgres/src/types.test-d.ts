// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type { ApprovalStore, ExecutionStore, ToolGatewayOptions } from '@ksadk/core';
import type { KnowledgeBase, MemoryBackend, MemoryToolsetOptions } from '@ksadk/core/memory';
import type { Client, Pool, PoolClient } from 'pg';
import { expectTypeOf } from 'vitest';
import type { migratePostgres } from './migrations.js';
import type { createPostgresApprovalStore } from './postgres-approval-store.js';
import type { createPostgresExecutionStore } from './postgres-execution-store.js';
import type { createPostgresKnowledgeBase } from './postgres-knowledge-base.js';
import type { createPostgresMemoryBackend } from './postgres-memory-backend.js';

// The stores plug into core where its own stores do, and the approval store says it is shared.
expectTypeOf<ReturnType<typeof createPostgresApprovalStore>>().toMatchTypeOf<
  NonNullable<ToolGatewayOptions['approvalStore']>
>();
expectTypeOf<ReturnType<typeof createPostgresApprovalStore>>().toMatchTypeOf<ApprovalStore>();
expectTypeOf<ReturnType<typeof createPostgresApprovalStore>['shared']>().toEqualTypeOf<true>();
expectTypeOf<ReturnType<typeof createPostgresExecutionStore>>().toMatchTypeOf<ExecutionStore>();
expectTypeOf<ReturnType<typeof createPostgresExecutionStore>>().toMatchTypeOf<
  NonNullable<NonNullable<ToolGatewayOptions['executions']>['store']>
>();
expectTypeOf<ReturnType<typeof createPostgresExecutionStore>['shared']>().toEqualTypeOf<true>();
expectTypeOf<ReturnType<typeof createPostgresMemoryBackend>>().toMatchTypeOf<
  NonNullable<MemoryToolsetOptions['memory']>
>();
expectTypeOf<ReturnType<typeof createPostgresMemoryBackend>>().toMatchTypeOf<MemoryBackend>();
expectTypeOf<ReturnType<typeof createPostgresKnowledgeBase>>().toMatchTypeOf<KnowledgeBase>();
// Migrations run on a pool, a client, or a pool's client.
expectTypeOf<Pool>().toMatchTypeOf<Parameters<typeof migratePostgres>[0]>();
expectTypeOf<Client>().toMatchTypeOf<Parameters<typeof migratePostgres>[0]>();
expectTypeOf<PoolClient>().toMatchTypeOf<Parameters<typeof migratePostgres>[0]>();
