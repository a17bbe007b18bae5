import { BaseLlm, type LlmRequest, type LlmResponse } from '@google/adk';
import type { Content } from '@google/genai';
import { createTurnScript, type ScriptedTurn, type TurnScript } from '@ksadk/core/testing';

/**
 * An ADK model that answers from a script, for offline agents and tests. Turns use the one
 * scripted-turn format of every KsADK adapter (`'text'`, `{ toolCalls: [{ name, args }] }`, or a
 * function of the `LlmRequest`). It records every request (`requests`: the declarations and
 * system instruction the model saw). Throws when the script runs out.
 *
 * @example
 * ```ts
 * const model = new ScriptedLlm([{ toolCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * const agent = new LlmAgent({ name: 'assistant', model, tools });
 * ```
 */
export class ScriptedLlm extends BaseLlm {
  /** Every request the agent sent. */
  readonly requests: LlmRequest[] = [];
  private readonly script: TurnScript<LlmRequest>;

  constructor(turns: ScriptedTurn<LlmRequest>[]) {
    super({ model: 'ksadk-scripted' });
    this.script = createTurnScript(turns);
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(request);
    const reply = this.script.next(request);
    const content: Content = {
      role: 'model',
      parts: [
        ...(reply.text !== null ? [{ text: reply.text }] : []),
        ...reply.toolCalls.map((call) => ({
          functionCall: {
            id: call.id,
            name: call.name,
            args:
              typeof call.args === 'string'
                ? (JSON.parse(call.args) as Record<string, unknown>)
                : call.args,
          },
        })),
      ],
    };
    yield { content };
  }

  async connect(): Promise<never> {
    throw new Error('The scripted model has no live mode.');
  }
}
