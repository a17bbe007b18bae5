import type { Tool, ToolGateway, ToolProgressEvent } from '@ksadk/core';
import {
  type CallRunner,
  checkOptions,
  createCallRunner,
  type ModelToolCall,
  toolCallBatch,
} from '@ksadk/core/adapter';
import { normalizeOpenAIArguments, openAIToolSchema } from '@ksadk/core/schema';
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { ResponseFunctionToolCall } from 'openai/resources/responses/responses';
import { type ToolCallBatch, withOpenAIOutputs } from './tool-call-batch.js';

/** A tool call from either API: a Chat Completions `tool_calls` entry or a Responses `function_call` item. */
export type OpenAIToolCall = ChatCompletionMessageToolCall | ResponseFunctionToolCall;

/** Options for {@link runToolCalls}. */
export interface RunToolCallsOptions {
  /** The tools the model was given (looked up by name). */
  tools: readonly Tool[];
  /** The gateway every call goes through. */
  gateway: ToolGateway;
  /** Must match the `strict` option given to `toOpenAITools`. @default true */
  strict?: boolean;
  /** Aborts running calls. */
  signal?: AbortSignal;
  /** Progress of long calls (an MCP server's progress notifications), for a progress bar; never sent to the model. */
  onProgress?: (event: ToolProgressEvent) => void;
}

function normalizeCall(call: OpenAIToolCall): ModelToolCall {
  if ('function' in call && call.type === 'function') {
    return { callId: call.id, name: call.function.name, arguments: call.function.arguments };
  }
  if ('call_id' in call)
    return { callId: call.call_id, name: call.name, arguments: call.arguments };
  const custom = call as { id?: string; custom?: { name?: string } };
  return { callId: custom.id ?? '', name: custom.custom?.name ?? '', arguments: '' };
}

/**
 * Runs one assistant turn's tool calls through the gateway, concurrently, keeping the model's
 * order. Arguments are parsed, strict-mode nulls are turned back into absent fields, and every
 * call is validated and gated by the gateway. Calls that need approval are returned as
 * `pending`; the host decides and calls `batch.resume(...)`.
 *
 * @example
 * ```ts
 * let batch = await runToolCalls(message.tool_calls ?? [], { tools, gateway });
 * if (!batch.done) batch = await batch.resume({ [batch.pending[0]!.callId]: { type: 'approve' } });
 * messages.push(message, ...batch.toolMessages());
 * ```
 */
export async function runToolCalls(
  calls: readonly OpenAIToolCall[],
  options: RunToolCallsOptions,
): Promise<ToolCallBatch> {
  checkOptions(
    options,
    { tools: true, gateway: true, strict: true, signal: true, onProgress: true },
    'runToolCalls()',
  );
  const run = callRunner(options);
  const normalized = calls.map(normalizeCall);
  const outcomes = await Promise.all(normalized.map((call) => run(call)));
  return withOpenAIOutputs(toolCallBatch(normalized, outcomes, run));
}

/** Core's call runner with OpenAI's argument rule: strict-mode nulls turned back into absent fields. */
export function callRunner(options: RunToolCallsOptions): CallRunner {
  const strict = options.strict !== false;
  return createCallRunner({
    tools: options.tools,
    gateway: options.gateway,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    normalizeArguments: (tool, args) =>
      normalizeOpenAIArguments(tool, args, strict && openAIToolSchema(tool).strict),
  });
}
