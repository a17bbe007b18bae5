import { BaseLlm, type LlmRequest, type LlmResponse } from '@google/adk';
import type { Content } from '@google/genai';

/** One scripted model turn: text, function calls, or a function of the request. */
export type ScriptedTurn =
  | string
  | { functionCalls: { name: string; args: Record<string, unknown>; id?: string }[] }
  | ((
      request: LlmRequest,
    ) =>
      | string
      | { functionCalls: { name: string; args: Record<string, unknown>; id?: string }[] });

/**
 * An ADK model that answers from a script, for offline agents and tests. It records every
 * request (so tests can read the declarations and system instruction the model saw). Throws when
 * the script runs out.
 *
 * @example
 * ```ts
 * const model = new ScriptedLlm([{ functionCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * const agent = new LlmAgent({ name: 'assistant', model, tools });
 * ```
 */
export class ScriptedLlm extends BaseLlm {
  /** Every request the agent sent. */
  readonly requests: LlmRequest[] = [];
  private readonly turns: ScriptedTurn[];
  private count = 0;

  constructor(turns: ScriptedTurn[]) {
    super({ model: 'ksadk-scripted' });
    this.turns = turns;
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(request);
    const next = this.turns.shift();
    if (next === undefined) throw new Error('The scripted model has no more turns.');
    const turn = typeof next === 'function' ? next(request) : next;
    this.count += 1;
    const content: Content =
      typeof turn === 'string'
        ? { role: 'model', parts: [{ text: turn }] }
        : {
            role: 'model',
            parts: turn.functionCalls.map((call, index) => ({
              functionCall: {
                id: call.id ?? `call_${this.count}_${index}`,
                name: call.name,
                args: call.args,
              },
            })),
          };
    yield { content };
  }

  async connect(): Promise<never> {
    throw new Error('The scripted model has no live mode.');
  }
}
