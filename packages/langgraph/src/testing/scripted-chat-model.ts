import { createTurnScript, type ScriptedTurn, type TurnScript } from '@ksadk/core/testing';
import type { BindToolsInput } from '@langchain/core/language_models/chat_models';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/**
 * A chat model that answers from a script, for offline agents and tests. Turns use the one
 * scripted-turn format of every KsADK adapter (`'text'`, `{ toolCalls: [{ name, args }] }`, or a
 * function of the conversation). It records the names of the tools bound to it
 * (`boundToolNames`) and every conversation it was asked to continue (`requests`). Throws when
 * the script runs out.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatModel([{ toolCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * ```
 */
export class ScriptedChatModel extends BaseChatModel {
  /** Tool names bound by the agent, in order. */
  boundToolNames: string[] = [];
  /** Every conversation the model was asked to continue. */
  readonly requests: BaseMessage[][] = [];
  private readonly script: TurnScript<BaseMessage[]>;

  constructor(turns: ScriptedTurn<BaseMessage[]>[]) {
    super({});
    this.script = createTurnScript(turns);
  }

  _llmType(): string {
    return 'ksadk-scripted';
  }

  override bindTools(tools: BindToolsInput[]): this {
    this.boundToolNames = tools.map((tool) => {
      const named = tool as { name?: string; function?: { name?: string } };
      return named.name ?? named.function?.name ?? '';
    });
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.requests.push([...messages]);
    const reply = this.script.next(messages);
    const message = new AIMessage({
      content: reply.text ?? '',
      tool_calls: reply.toolCalls.map((call) => ({
        name: call.name,
        args:
          typeof call.args === 'string'
            ? (JSON.parse(call.args) as Record<string, unknown>)
            : call.args,
        id: call.id,
        type: 'tool_call' as const,
      })),
    });
    return { generations: [{ text: reply.text ?? '', message }] };
  }
}
