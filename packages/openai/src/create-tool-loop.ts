import type { Tool, ToolGateway, ToolProgressEvent } from '@ksadk/core';
import {
  checkOptions,
  type OptionKeys,
  savedBatch,
  toolCallBatch,
  toolLoopState,
} from '@ksadk/core/adapter';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import {
  appendToolResults,
  firstMessages,
  type ModelTurnSettings,
  modelTurn,
} from './model-turn.js';
import { callRunner } from './run-tool-calls.js';
import { type OpenAIApi, toOpenAITools } from './to-openai-tools.js';
import {
  type PendingToolCall,
  type ToolCallBatch,
  type ToolCallDecision,
  withOpenAIOutputs,
} from './tool-call-batch.js';
import { OPENAI_TOOL_LOOP, readToolLoopState, type ToolLoopState } from './tool-loop-state.js';

export * from './load-openai-tools.js';

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

const TOOL_LOOP_OPTIONS = {
  model: true,
  tools: true,
  gateway: true,
  api: true,
  strict: true,
  instructions: true,
  maxTurns: true,
  request: true,
  onProgress: true,
} as const satisfies OptionKeys<ToolLoopOptions>;

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
  checkOptions(options, TOOL_LOOP_OPTIONS, 'createToolLoop()');
  const api = options.api ?? 'chat';
  const strict = options.strict !== false;
  const maxTurns = options.maxTurns ?? 10;
  const runOptions = {
    tools: options.tools,
    gateway: options.gateway,
    strict,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
  const run = callRunner(runOptions);
  const settings: ModelTurnSettings = {
    api,
    model: options.model,
    instructions: options.instructions,
    request: options.request,
    definitions: toOpenAITools(options.tools, { api, strict }),
    runOptions,
  };

  const continueFrom = async (
    messages: ToolLoopMessages,
    turns: number,
    batch?: ToolCallBatch,
  ): Promise<ToolLoopResult> => {
    if (batch && !batch.done) {
      return {
        status: 'needs_approval',
        pending: batch.pending,
        messages,
        turns,
        resume: async (decisions) => continueFrom(messages, turns, await batch.resume(decisions)),
        toJSON: () =>
          toolLoopState({ type: OPENAI_TOOL_LOOP, api }, turns, messages, batch.toJSON()),
      };
    }
    if (batch) appendToolResults(api, messages, batch);
    if (turns >= maxTurns) return { status: 'max_turns', messages, turns };
    const turn = await modelTurn(client, messages, settings);
    if ('output' in turn)
      return { status: 'completed', output: turn.output, messages, turns: turns + 1 };
    return continueFrom(messages, turns + 1, turn.batch);
  };

  return {
    async resume(saved, decisions) {
      const state = readToolLoopState(saved, api);
      const { calls, outcomes } = savedBatch(state);
      const batch = withOpenAIOutputs(toolCallBatch(calls, outcomes, run));
      return continueFrom(
        state.messages as ToolLoopMessages,
        state.turns,
        await batch.resume(decisions),
      );
    },
    run: (input) =>
      continueFrom(firstMessages(api, input, options.instructions) as ToolLoopMessages, 0),
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
