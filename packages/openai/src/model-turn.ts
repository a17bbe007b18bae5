import { KsadkError } from '@ksadk/core';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { type RunToolCallsOptions, runToolCalls } from './run-tool-calls.js';
import type { OpenAIApi, OpenAIToolDefinition } from './to-openai-tools.js';
import type { ToolCallBatch } from './tool-call-batch.js';

/** What one model call of a tool loop sends. */
export interface ModelTurnSettings {
  readonly api: OpenAIApi;
  readonly model: string;
  readonly instructions?: string | undefined;
  readonly request?: Record<string, unknown> | undefined;
  readonly definitions: readonly OpenAIToolDefinition<OpenAIApi>[];
  readonly runOptions: RunToolCallsOptions;
}

/** The model's final answer, or the batch of its tool calls (run through the gateway). */
export type ModelTurn = { readonly output: string } | { readonly batch: ToolCallBatch };

/**
 * Asks the model once (Chat Completions or Responses) with the conversation so far, appends its
 * message (or function calls) to `messages`, and runs the tool calls it asked for.
 */
export async function modelTurn(
  client: OpenAI,
  messages: unknown[],
  settings: ModelTurnSettings,
): Promise<ModelTurn> {
  const { definitions, runOptions } = settings;
  const tools = definitions.length > 0 ? { tools: definitions as never } : {};
  if (settings.api === 'chat') {
    const chat = messages as ChatCompletionMessageParam[];
    const completion = await client.chat.completions.create({
      ...(settings.request ?? {}),
      model: settings.model,
      messages: chat,
      ...tools,
    });
    const message = completion.choices[0]?.message;
    if (!message) throw new KsadkError('internal', 'The model returned no choice.');
    chat.push(message);
    if (!message.tool_calls?.length) return { output: message.content ?? '' };
    return { batch: await runToolCalls(message.tool_calls, runOptions) };
  }
  const items = messages as ResponseInputItem[];
  const response = await client.responses.create({
    ...(settings.request ?? {}),
    model: settings.model,
    input: items,
    ...(settings.instructions ? { instructions: settings.instructions } : {}),
    ...tools,
  });
  const calls = response.output.filter((item) => item.type === 'function_call');
  if (calls.length === 0) return { output: response.output_text };
  items.push(...(calls as ResponseInputItem[]));
  return { batch: await runToolCalls(calls, runOptions) };
}

/** Appends a finished batch's answers to the conversation, in the API's own shape. */
export function appendToolResults(api: OpenAIApi, messages: unknown[], batch: ToolCallBatch): void {
  if (api === 'chat') (messages as ChatCompletionMessageParam[]).push(...batch.toolMessages());
  else (messages as ResponseInputItem[]).push(...batch.functionCallOutputs());
}

/** The conversation a run starts from: a copy of the given one, or the user's message (after the instructions, for Chat Completions). */
export function firstMessages(
  api: OpenAIApi,
  input: string | readonly unknown[],
  instructions: string | undefined,
): unknown[] {
  if (typeof input !== 'string') return [...input];
  if (api !== 'chat') return [{ role: 'user', content: input }];
  const messages: ChatCompletionMessageParam[] = [
    ...(instructions ? [{ role: 'system' as const, content: instructions }] : []),
    { role: 'user', content: input },
  ];
  return messages;
}
