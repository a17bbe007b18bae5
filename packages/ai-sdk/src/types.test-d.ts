// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type { AgentToolsLoad } from '@ksadk/core/catalog';
import type { generateText, LanguageModel, streamText, ToolSet } from 'ai';
import { expectTypeOf } from 'vitest';
import type { loadAiSdkTools } from './load-ai-sdk-tools.js';
import type { createScriptedLanguageModel } from './testing/scripted-language-model.js';
import type { toAiSdkTools } from './to-ai-sdk-tools.js';

// The tool set is what generateText and streamText take.
expectTypeOf<ReturnType<typeof toAiSdkTools>>().toEqualTypeOf<ToolSet>();
expectTypeOf<ReturnType<typeof toAiSdkTools>>().toMatchTypeOf<
  NonNullable<Parameters<typeof generateText>[0]['tools']>
>();
expectTypeOf<ReturnType<typeof toAiSdkTools>>().toMatchTypeOf<
  NonNullable<Parameters<typeof streamText>[0]['tools']>
>();
// The loader returns core's load, and its tools as a set.
expectTypeOf<Awaited<ReturnType<typeof loadAiSdkTools>>>().toMatchTypeOf<AgentToolsLoad>();
expectTypeOf<Awaited<ReturnType<typeof loadAiSdkTools>>['toolSet']>().toEqualTypeOf<ToolSet>();
// The scripted model is a model the SDK takes.
expectTypeOf<ReturnType<typeof createScriptedLanguageModel>>().toMatchTypeOf<LanguageModel>();
