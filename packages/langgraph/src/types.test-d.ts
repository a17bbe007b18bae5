// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { expectTypeOf } from 'vitest';
import type { createKsadkAgent, loadLangGraphTools } from './create-ksadk-agent.js';
import type { toLangGraphTools } from './to-langgraph-tools.js';

expectTypeOf<ReturnType<typeof toLangGraphTools>>().toEqualTypeOf<DynamicStructuredTool[]>();
expectTypeOf<Awaited<ReturnType<typeof loadLangGraphTools>>['tools']>().toEqualTypeOf<
  DynamicStructuredTool[]
>();
expectTypeOf<Awaited<ReturnType<typeof createKsadkAgent>>['warnings']>().toEqualTypeOf<
  readonly string[]
>();
