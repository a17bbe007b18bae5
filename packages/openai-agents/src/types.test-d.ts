// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type { ApprovalPause } from '@ksadk/core/adapter';
import type { AgentToolsLoad } from '@ksadk/core/catalog';
import type { Agent, AgentOptions, Model, RunState, RunToolApprovalItem } from '@openai/agents';
import { expectTypeOf } from 'vitest';
import type { approvalRequestOf, settleRejections } from './interruptions.js';
import type { loadOpenAIAgentsTools } from './load-openai-agents-tools.js';
import type { createScriptedModel } from './testing/scripted-model.js';
import type { toOpenAIAgentsTools } from './to-openai-agents-tools.js';

// The tools are what an agent of any context takes.
expectTypeOf<ReturnType<typeof toOpenAIAgentsTools>>().toMatchTypeOf<
  NonNullable<AgentOptions['tools']>
>();
expectTypeOf<ReturnType<typeof toOpenAIAgentsTools>>().toMatchTypeOf<
  NonNullable<AgentOptions<{ userId: string }>['tools']>
>();
// The loader returns core's load, and its tools for the agent.
expectTypeOf<Awaited<ReturnType<typeof loadOpenAIAgentsTools>>>().toMatchTypeOf<AgentToolsLoad>();
expectTypeOf<Awaited<ReturnType<typeof loadOpenAIAgentsTools>>['agentTools']>().toEqualTypeOf<
  ReturnType<typeof toOpenAIAgentsTools>
>();
// The interruption helpers take the SDK's own items and states.
expectTypeOf<typeof approvalRequestOf>().parameter(0).toEqualTypeOf<RunToolApprovalItem>();
expectTypeOf<ReturnType<typeof approvalRequestOf>>().toEqualTypeOf<
  Promise<ApprovalPause | undefined>
>();
expectTypeOf<RunState<unknown, Agent>>().toMatchTypeOf<Parameters<typeof settleRejections>[0]>();
expectTypeOf<RunState<{ userId: string }, Agent<{ userId: string }>>>().toMatchTypeOf<
  Parameters<typeof settleRejections>[0]
>();
// The scripted model is a model the SDK takes.
expectTypeOf<ReturnType<typeof createScriptedModel>>().toMatchTypeOf<Model>();
