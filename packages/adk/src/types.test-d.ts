// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type { BaseTool, LlmAgent } from '@google/adk';
import { expectTypeOf } from 'vitest';
import type { KsadkAdkTool } from './ksadk-adk-tool.js';
import type { loadAdkAgent } from './load-adk-agent.js';
import type { toAdkTools } from './to-adk-tools.js';

expectTypeOf<ReturnType<typeof toAdkTools>>().toEqualTypeOf<KsadkAdkTool[]>();
expectTypeOf<KsadkAdkTool>().toMatchTypeOf<BaseTool>();
expectTypeOf<Awaited<ReturnType<typeof loadAdkAgent>>['agent']>().toEqualTypeOf<LlmAgent>();
