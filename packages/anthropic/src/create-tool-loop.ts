import type Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Tool, ToolGateway, ToolProgressEvent } from '@ksadk/core';
import {
  checkOptions,
  type OptionKeys,
  readToolLoopState,
  type ToolLoopState as SavedState,
  savedBatch,
  toolCallBatch,
  toolLoopState,
} from '@ksadk/core/adapter';
import { runWith, toolUseRunner } from './run-tool-uses.js';
import { toAnthropicTools } from './to-anthropic-tools.js';
import {
  type PendingToolCall,
  type ToolCallDecision,
  type ToolUseBatch,
  withToolResults,
} from './tool-results.js';

const STATE = { type: 'ksadk.anthropic.tool_loop', api: 'messages' } as const;

/**
 * A paused Claude tool loop as plain, versioned JSON: the conversation (Messages API params) and
 * the turn's `tool_use` calls with their outcomes. It holds no credential — approvals stay bound
 * by the gateway's store, so an edited state can only ask again, never run an unapproved call —
 * but it does hold the conversation: store it as you store conversations.
 */
export type ToolLoopState = SavedState<typeof STATE.type, typeof STATE.api>;

/** Options for {@link createToolLoop}. */
export interface ToolLoopOptions {
  model: string;
  tools: readonly Tool[];
  gateway: ToolGateway;
  /** The system prompt (the assembly's `instructions`, say). */
  system?: string;
  /** `max_tokens` of each model call. @default 4096 */
  maxTokens?: number;
  /** Model calls at most per run. @default 10 */
  maxTurns?: number;
  /** Extra request parameters (temperature, `tool_choice`, `cache_control`…). */
  request?: Record<string, unknown>;
  /** Stream each model call (`client.messages.stream`); its text reaches `onText` as it comes. */
  stream?: boolean;
  /** Text deltas while streaming. */
  onText?: (text: string) => void;
  /** Progress of long tool calls, for a progress bar; never sent to the model. */
  onProgress?: (event: ToolProgressEvent) => void;
}

/** How a run ended. */
export type ToolLoopResult =
  | {
      status: 'completed';
      output: string;
      message: Message;
      messages: MessageParam[];
      turns: number;
    }
  | {
      status: 'needs_approval';
      /** Calls waiting for the host, by `tool_use_id`. Nothing was sent to Claude yet for this turn. */
      pending: readonly PendingToolCall[];
      messages: MessageParam[];
      turns: number;
      /** Applies decisions (by `tool_use_id` or approval id) and continues the run. */
      resume(decisions: Readonly<Record<string, ToolCallDecision>>): Promise<ToolLoopResult>;
      /** The pause as plain JSON: save it, resume in any process with `loop.resume(state, decisions)`. */
      toJSON(): ToolLoopState;
    }
  | { status: 'max_turns'; messages: MessageParam[]; turns: number };

/** A Claude ↔ tools loop. */
export interface ToolLoop {
  /** Runs from a user message (or a whole conversation) until a final answer, a pause, or `maxTurns`. */
  run(input: string | readonly MessageParam[]): Promise<ToolLoopResult>;
  /**
   * Resumes a saved pause (the object or its JSON text) with the host's decisions, in this process
   * or another with the same tools and a gateway on the same approval store. Approved calls run
   * once; resuming the same state again runs nothing twice.
   *
   * @throws {KsadkError} `invalid_state` when the state is malformed or not a Claude loop's.
   */
  resume(
    state: ToolLoopState | string,
    decisions: Readonly<Record<string, ToolCallDecision>>,
  ): Promise<ToolLoopResult>;
}

const LOOP_OPTIONS = {
  model: true,
  tools: true,
  gateway: true,
  system: true,
  maxTokens: true,
  maxTurns: true,
  request: true,
  stream: true,
  onText: true,
  onProgress: true,
} as const satisfies OptionKeys<ToolLoopOptions>;

const textOf = (message: Message): string =>
  message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

/**
 * A small tool loop over the official `@anthropic-ai/sdk` client: it asks Claude, runs its
 * `tool_use` blocks through the gateway (concurrently, answered in order, in one user message),
 * and repeats until a final answer. A call that needs the host's approval (or asks a question, or
 * needs the user's credential) stops the loop with the pending calls; `resume(decisions)` — keyed
 * by `tool_use_id` — carries on from exactly there, now or from the saved JSON in another process.
 *
 * @example
 * ```ts
 * const loop = createToolLoop(new Anthropic(), { model: 'claude-sonnet-4-5', tools, gateway });
 * let result = await loop.run('Add coffee to my groceries note');
 * while (result.status === 'needs_approval') result = await result.resume(await askHuman(result.pending));
 * ```
 */
export function createToolLoop(client: Anthropic, options: ToolLoopOptions): ToolLoop {
  checkOptions(options, LOOP_OPTIONS, 'createToolLoop()');
  const maxTurns = options.maxTurns ?? 10;
  const run = toolUseRunner({
    tools: options.tools,
    gateway: options.gateway,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const definitions = toAnthropicTools(options.tools);

  const ask = async (messages: MessageParam[]): Promise<Message> => {
    const params = {
      ...(options.request ?? {}),
      model: options.model,
      max_tokens: options.maxTokens ?? 4096,
      messages,
      ...(options.system ? { system: options.system } : {}),
      ...(definitions.length > 0 ? { tools: definitions } : {}),
    } as Anthropic.MessageCreateParamsNonStreaming;
    if (!options.stream) return client.messages.create(params);
    const stream = client.messages.stream(params);
    if (options.onText) stream.on('text', options.onText);
    return stream.finalMessage();
  };

  const continueFrom = async (
    messages: MessageParam[],
    turns: number,
    batch?: ToolUseBatch,
  ): Promise<ToolLoopResult> => {
    if (batch && !batch.done) {
      return {
        status: 'needs_approval',
        pending: batch.pending,
        messages,
        turns,
        resume: async (decisions) => continueFrom(messages, turns, await batch.resume(decisions)),
        toJSON: () => toolLoopState(STATE, turns, messages, batch.toJSON()),
      };
    }
    if (batch) messages.push(batch.userMessage());
    if (turns >= maxTurns) return { status: 'max_turns', messages, turns };
    const message = await ask(messages);
    messages.push({ role: 'assistant', content: message.content });
    const next = await runWith(message, run);
    if (next.calls.length === 0)
      return { status: 'completed', output: textOf(message), message, messages, turns: turns + 1 };
    return continueFrom(messages, turns + 1, next);
  };

  return {
    run: (input) =>
      continueFrom(typeof input === 'string' ? [{ role: 'user', content: input }] : [...input], 0),
    async resume(saved, decisions) {
      const state = readToolLoopState(saved, STATE);
      const { calls, outcomes } = savedBatch(state);
      const batch = withToolResults(toolCallBatch(calls, outcomes, run));
      return continueFrom(
        state.messages as MessageParam[],
        state.turns,
        await batch.resume(decisions),
      );
    },
  };
}

/**
 * Resumes a saved Claude tool loop: `createToolLoop(client, options).resume(state, decisions)`.
 * The tools and gateway come from `options` (live objects); the gateway must use the same approval
 * store (and secret) as the process that paused.
 */
export function resumeToolLoop(
  client: Anthropic,
  options: ToolLoopOptions,
  state: ToolLoopState | string,
  decisions: Readonly<Record<string, ToolCallDecision>>,
): Promise<ToolLoopResult> {
  return createToolLoop(client, options).resume(state, decisions);
}
