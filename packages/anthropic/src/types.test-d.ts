// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { AgentToolsLoad } from '@ksadk/core/catalog';
import { expectTypeOf } from 'vitest';
import type { loadAnthropicTools } from './load-anthropic-tools.js';
import type { runToolUses } from './run-tool-uses.js';
import type { toAnthropicTools } from './to-anthropic-tools.js';

type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

// The definitions are what messages.create takes as `tools`.
expectTypeOf<ReturnType<typeof toAnthropicTools>>().toMatchTypeOf<
  NonNullable<CreateParams['tools']>
>();
// A batch's answer is a message the conversation takes.
expectTypeOf<
  ReturnType<Awaited<ReturnType<typeof runToolUses>>['userMessage']>
>().toMatchTypeOf<MessageParam>();
// runToolUses takes what messages.create returns.
expectTypeOf<Anthropic.Message>().toMatchTypeOf<Parameters<typeof runToolUses>[0]>();
// The loader returns core's load, and the definitions.
expectTypeOf<Awaited<ReturnType<typeof loadAnthropicTools>>>().toMatchTypeOf<AgentToolsLoad>();
