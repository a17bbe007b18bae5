import { randomBytes } from 'node:crypto';
/** One tool call a scripted model makes. */
export interface ScriptedToolCall {
  readonly name: string;
  /** The arguments; a string is sent as is (to script malformed JSON). */
  readonly args: Record<string, unknown> | string;
  /** @default `call_<script>_<turn>_<index>`: unique, as a provider's ids are (`<script>` is random per script) */
  readonly id?: string;
}

/** What a scripted model answers in one turn: text, or tool calls (with optional text). */
export type ScriptedReply =
  | string
  | { readonly text?: string; readonly toolCalls: readonly ScriptedToolCall[] };

/**
 * One turn of a scripted model — the same format for LangGraph's `ScriptedChatModel`, ADK's
 * `ScriptedLlm` and OpenAI's `createScriptedOpenAIFetch`: a reply, or a function of what the model
 * was asked (the framework's own request) that returns one.
 *
 * @example
 * ```ts
 * const turns: ScriptedTurn<unknown>[] = [{ toolCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.'];
 * ```
 */
export type ScriptedTurn<TRequest> = ScriptedReply | ((request: TRequest) => ScriptedReply);

/** A scripted model's turns, played in order: each call answers the next one. */
export interface TurnScript<TRequest> {
  /**
   * The next reply, normalised: its text (`null` when there is none) and its tool calls with
   * ids and string-or-object arguments. Throws when the script has run out.
   */
  next(request: TRequest): {
    text: string | null;
    toolCalls: { id: string; name: string; args: Record<string, unknown> | string }[];
  };
}

/** Plays `turns` in order, for the adapters' scripted models. */
export function createTurnScript<TRequest>(turns: ScriptedTurn<TRequest>[]): TurnScript<TRequest> {
  const queue = [...turns];
  const script = randomBytes(3).toString('hex');
  let count = 0;
  return {
    next(request) {
      const turn = queue.shift();
      if (turn === undefined) throw new Error('The scripted model has no more turns.');
      const reply = typeof turn === 'function' ? turn(request) : turn;
      count += 1;
      if (typeof reply === 'string') return { text: reply, toolCalls: [] };
      return {
        text: reply.text ?? null,
        toolCalls: reply.toolCalls.map((call, index) => ({
          id: call.id ?? `call_${script}_${count}_${index}`,
          name: call.name,
          args: call.args,
        })),
      };
    },
  };
}
