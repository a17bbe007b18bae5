// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type { AgentToolsLoad } from '@ksadk/core/catalog';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { expectTypeOf } from 'vitest';
import type { loadOpenAITools } from './create-tool-loop.js';
import type { toOpenAITools } from './to-openai-tools.js';

// The definitions match the API they are for.
expectTypeOf<ReturnType<typeof toOpenAITools<'chat'>>>().toMatchTypeOf<ChatCompletionTool[]>();
expectTypeOf<
  ReturnType<typeof toOpenAITools<'chat'>>[number]
>().toMatchTypeOf<ChatCompletionFunctionTool>();
expectTypeOf<ReturnType<typeof toOpenAITools<'responses'>>>().toMatchTypeOf<FunctionTool[]>();
// The loader returns core's load.
expectTypeOf<Awaited<ReturnType<typeof loadOpenAITools>>>().toEqualTypeOf<AgentToolsLoad>();
