// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type { ApprovalStore, ExecutionStore, ToolGatewayOptions } from '@ksadk/core';
import type { MemoryBackend } from '@ksadk/core/memory';
import type { Cluster, Redis } from 'ioredis';
import { expectTypeOf } from 'vitest';
import type {
  createRedisApprovalStore,
  RedisApprovalStoreOptions,
} from './redis-approval-store.js';
import type { createRedisExecutionStore } from './redis-execution-store.js';
import type { createRedisMemoryBackend } from './redis-memory-backend.js';

// The stores plug into core where its own stores do, and say they are shared.
expectTypeOf<ReturnType<typeof createRedisApprovalStore>>().toMatchTypeOf<ApprovalStore>();
expectTypeOf<ReturnType<typeof createRedisApprovalStore>>().toMatchTypeOf<
  NonNullable<ToolGatewayOptions['approvalStore']>
>();
expectTypeOf<ReturnType<typeof createRedisApprovalStore>['shared']>().toEqualTypeOf<true>();
expectTypeOf<ReturnType<typeof createRedisExecutionStore>>().toMatchTypeOf<ExecutionStore>();
expectTypeOf<ReturnType<typeof createRedisExecutionStore>>().toMatchTypeOf<
  NonNullable<NonNullable<ToolGatewayOptions['executions']>['store']>
>();
expectTypeOf<ReturnType<typeof createRedisExecutionStore>['shared']>().toEqualTypeOf<true>();
expectTypeOf<ReturnType<typeof createRedisMemoryBackend>>().toMatchTypeOf<MemoryBackend>();
// A single client or a cluster.
expectTypeOf<Redis>().toMatchTypeOf<NonNullable<RedisApprovalStoreOptions['client']>>();
expectTypeOf<Cluster>().toMatchTypeOf<NonNullable<RedisApprovalStoreOptions['client']>>();
