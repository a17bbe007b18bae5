import {
  checkOptions,
  KsadkError,
  type Tool,
  type ToolGateway,
  type ToolProgressEvent,
} from '@ksadk/core';
import {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from '@ksadk/core/catalog';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { callRunner, runToolCalls } from './run-tool-calls.js';
import { type OpenAIApi, toOpenAITools } from './to-openai-tools.js';
import {
  batchOf,
  type PendingToolCall,
  type ToolCallBatch,
  type ToolCallDecision,
} from './tool-call-batch.js';
import {
  readToolLoopState,
  savedBatch,
  type ToolLoopState,
  toolLoopState,
} from './tool-loop-state.js';

/** Options for {@link createToolLoop}. */
export interface ToolLoopOptions {
  model: string;
  tools: readonly Tool[];
  gateway: ToolGateway;
  /** @default 'chat' */
  api?: OpenAIApi;
  /** Strict schemas where lossless. @default true */
  strict?: boolean;
  /** System instructions. */
  instructions?: string;
  /** Model calls at most per run. @default 10 */
  maxTurns?: number;
  /** Extra request parameters (temperature, …). */
  request?: Record<string, unknown>;
  /** Progress of long tool calls (an MCP server's progress notifications), for a progress bar; never sent to the model. */
  onProgress?: (event: ToolProgressEvent) => void;
}

/** The conversation so far, in the API's own shape. */
export type ToolLoopMessages = ChatCompletionMessageParam[] | ResponseInputItem[];

/** How a run ended. */
export type ToolLoopResult =
  | { status: 'completed'; output: string; messages: ToolLoopMessages; turns: number }
  | {
      status: 'needs_approval';
      /** Calls waiting for the host. Nothing was sent to the model yet for this turn. */
      pending: readonly PendingToolCall[];
      messages: ToolLoopMessages;
      turns: number;
      /** Applies decisions (by call id or approval id) and continues the run. */
      resume(decisions: Readonly<Record<string, ToolCallDecision>>): Promise<ToolLoopResult>;
      /**
       * The pause as plain JSON (versioned): save it, and resume in any process with
       * `loop.resume(state, decisions)`. `JSON.stringify(result)` gives the same.
       */
      toJSON(): ToolLoopState;
    }
  | { status: 'max_turns'; messages: ToolLoopMessages; turns: number };

/** A model ↔ tools loop. */
export interface ToolLoop {
  /** Runs from a user message (or a whole conversation) until a final answer, a pending approval, or `maxTurns`. */
  run(input: string | ToolLoopMessages): Promise<ToolLoopResult>;
  /**
   * Resumes a saved pause (`result.toJSON()`, as the object or its JSON text) with the host's
   * decisions — in this process or any other with the same tools and a gateway on the same approval
   * store. Approved calls run once; a second resume of the same state finds the grant used and
   * pauses again with a fresh request instead of running twice.
   *
   * @throws {KsadkError} `invalid_state` when the state is malformed, of another version or API.
   */
  resume(
    state: ToolLoopState | string,
    decisions: Readonly<Record<string, ToolCallDecision>>,
  ): Promise<ToolLoopResult>;
}

/**
 * A small tool loop over the official `openai` client (Chat Completions or Responses): it asks the
 * model, runs its tool calls through the gateway (concurrently, answered in call order), and
 * repeats until a final answer. When a call needs the host's approval it stops and returns the
 * pending calls; `resume(decisions)` carries on from exactly there.
 *
 * @example
 * ```ts
 * const loop = createToolLoop(new OpenAI(), { model: 'gpt-4.1-mini', tools, gateway });
 * let result = await loop.run('Add coffee to my groceries note');
 * while (result.status === 'needs_approval') result = await result.resume(await askHuman(result.pending));
 * ```
 */
export function createToolLoop(client: OpenAI, options: ToolLoopOptions): ToolLoop {
  checkOptions(
    options,
    [
      'model',
      'tools',
      'gateway',
      'api',
      'strict',
      'instructions',
      'maxTurns',
      'request',
      'onProgress',
    ],
    'createToolLoop()',
  );
  const api = options.api ?? 'chat';
  const strict = options.strict !== false;
  const maxTurns = options.maxTurns ?? 10;
  const definitions = toOpenAITools(options.tools, { api, strict });
  const runOptions = {
    tools: options.tools,
    gateway: options.gateway,
    strict,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
  const run = callRunner(runOptions);

  const continueFrom = async (
    messages: ToolLoopMessages,
    turns: number,
    batch?: ToolCallBatch,
  ): Promise<ToolLoopResult> => {
    if (batch) {
      if (!batch.done) {
        return {
          status: 'needs_approval',
          pending: batch.pending,
          messages,
          turns,
          resume: async (decisions) => continueFrom(messages, turns, await batch.resume(decisions)),
          toJSON: () => toolLoopState(api, turns, messages, batch.toJSON()),
        };
      }
      if (api === 'chat') (messages as ChatCompletionMessageParam[]).push(...batch.toolMessages());
      else (messages as ResponseInputItem[]).push(...batch.functionCallOutputs());
    }
    if (turns >= maxTurns) return { status: 'max_turns', messages, turns };
    if (api === 'chat') {
      const chat = messages as ChatCompletionMessageParam[];
      const completion = await client.chat.completions.create({
        ...(options.request ?? {}),
        model: options.model,
        messages: chat,
        ...(definitions.length > 0 ? { tools: definitions as never } : {}),
      });
      const message = completion.choices[0]?.message;
      if (!message) throw new KsadkError('internal', 'The model returned no choice.');
      chat.push(message);
      if (!message.tool_calls?.length)
        return { status: 'completed', output: message.content ?? '', messages, turns: turns + 1 };
      return continueFrom(messages, turns + 1, await runToolCalls(message.tool_calls, runOptions));
    }
    const items = messages as ResponseInputItem[];
    const response = await client.responses.create({
      ...(options.request ?? {}),
      model: options.model,
      input: items,
      ...(options.instructions ? { instructions: options.instructions } : {}),
      ...(definitions.length > 0 ? { tools: definitions as never } : {}),
    });
    const calls = response.output.filter((item) => item.type === 'function_call');
    if (calls.length === 0)
      return { status: 'completed', output: response.output_text, messages, turns: turns + 1 };
    items.push(...(calls as ResponseInputItem[]));
    return continueFrom(messages, turns + 1, await runToolCalls(calls, runOptions));
  };

  return {
    async resume(saved, decisions) {
      const state = readToolLoopState(saved, api);
      const { calls, outcomes } = savedBatch(state);
      const batch = batchOf(calls, outcomes, run);
      return continueFrom(
        state.messages as ToolLoopMessages,
        state.turns,
        await batch.resume(decisions),
      );
    },
    run(input) {
      if (typeof input !== 'string') return continueFrom([...input] as ToolLoopMessages, 0);
      if (api === 'chat') {
        const messages: ChatCompletionMessageParam[] = [
          ...(options.instructions
            ? [{ role: 'system' as const, content: options.instructions }]
            : []),
          { role: 'user', content: input },
        ];
        return continueFrom(messages, 0);
      }
      return continueFrom([{ role: 'user', content: input }], 0);
    },
  };
}

/**
 * Resumes a saved tool loop pause in this process: `createToolLoop(client, options).resume(state,
 * decisions)`. The loop's tools and gateway are live objects, so they come from `options`, not from
 * the state; the gateway must use the same approval store (and secret) as the process that paused.
 *
 * @example
 * ```ts
 * // Instance A: save the pause.
 * if (result.status === 'needs_approval') await db.save(runId, JSON.stringify(result));
 * // Instance B, later: the human approved.
 * const next = await resumeToolLoop(new OpenAI(), { model, tools, gateway }, await db.load(runId), {
 *   [callId]: { type: 'approve' },
 * });
 * ```
 */
export function resumeToolLoop(
  client: OpenAI,
  options: ToolLoopOptions,
  state: ToolLoopState | string,
  decisions: Readonly<Record<string, ToolCallDecision>>,
): Promise<ToolLoopResult> {
  return createToolLoop(client, options).resume(state, decisions);
}

/**
 * Options for {@link loadOpenAITools}: core's `loadAgentTools` options — what to assemble, the
 * gateway, and whether sources default from the environment (they do unless `environment: false`).
 */
export type LoadOpenAIToolsOptions = LoadAgentToolsOptions;

/** Assembled tools for OpenAI function calling: core's load, unchanged (KsADK tools in order). */
export type OpenAIToolsLoad = AgentToolsLoad;

/**
 * Assembles the tools (own → memory → skills → built-ins → MCP → A2A) for OpenAI function calling.
 * Pass `tools` and `gateway` to {@link createToolLoop}, and `instructions` as its `instructions`.
 */
export async function loadOpenAITools(
  options: LoadOpenAIToolsOptions = {},
): Promise<OpenAIToolsLoad> {
  return loadAgentTools(options);
}
