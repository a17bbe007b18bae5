import type {
  ContentBlock,
  Message,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { Tool, ToolGateway, ToolProgressEvent } from '@ksadk/core';
import {
  type CallRunner,
  checkOptions,
  createCallRunner,
  type ModelToolCall,
  toolCallBatch,
} from '@ksadk/core/adapter';
import { type ToolUseBatch, withToolResults } from './tool-results.js';

/** Options for {@link runToolUses}. */
export interface RunToolUsesOptions {
  /** The tools Claude was given (looked up by name). */
  tools: readonly Tool[];
  /** The gateway every call goes through. */
  gateway: ToolGateway;
  /** Aborts running calls. */
  signal?: AbortSignal;
  /** Progress of long calls (an MCP server's progress notifications), for a progress bar; never sent to the model. */
  onProgress?: (event: ToolProgressEvent) => void;
}

const RUN_OPTIONS = { tools: true, gateway: true, signal: true, onProgress: true } as const;

/** A `tool_use` block as core's model call: the input as JSON text, read by core's one parser. */
function callOf(block: ToolUseBlock): ModelToolCall {
  let text: string;
  try {
    text = JSON.stringify(block.input ?? {}) ?? '';
  } catch {
    // Not JSON (cyclic, a BigInt): left for the gateway to refuse as invalid arguments.
    text = '<not JSON>';
  }
  return { callId: String(block.id), name: String(block.name), arguments: text };
}

/** Core's call runner for Claude's calls. */
export function toolUseRunner(options: RunToolUsesOptions): CallRunner {
  return createCallRunner({
    tools: options.tools,
    gateway: options.gateway,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}

/**
 * Runs the `tool_use` blocks of one assistant message (or its content) through the gateway,
 * concurrently, keeping Claude's order; server tools and text are left alone. Every call is
 * validated and gated by the gateway; one that needs the host's approval comes back `pending`
 * (decide, then `batch.resume({ [toolUseId]: { type: 'approve' } })`). When `done`, send
 * `batch.userMessage()`: a `tool_result` per call, images as image blocks, failures `is_error`.
 *
 * @example
 * ```ts
 * let batch = await runToolUses(message, { tools, gateway });
 * if (!batch.done) batch = await batch.resume({ [batch.pending[0]!.callId]: 'approve' });
 * messages.push({ role: 'assistant', content: message.content }, batch.userMessage());
 * ```
 */
export async function runToolUses(
  message: Pick<Message, 'content'> | readonly ContentBlock[],
  options: RunToolUsesOptions,
): Promise<ToolUseBatch> {
  checkOptions(options, RUN_OPTIONS, 'runToolUses()');
  return runWith(message, toolUseRunner(options));
}

/** {@link runToolUses} with a runner made already (the loop makes one per run). */
export async function runWith(
  message: Pick<Message, 'content'> | readonly ContentBlock[],
  run: CallRunner,
): Promise<ToolUseBatch> {
  const content = Array.isArray(message) ? message : (message as Message).content;
  const calls = (content as ContentBlock[])
    .filter((block): block is ToolUseBlock => block?.type === 'tool_use')
    .map(callOf);
  const outcomes = await Promise.all(calls.map((call) => run(call)));
  return withToolResults(toolCallBatch(calls, outcomes, run));
}
