import type { BindToolsInput } from '@langchain/core/language_models/chat_models';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/** One scripted reply: text, tool calls, or a function of the conversation so far. */
export type ScriptedReply =
  | string
  | { tool_calls: { name: string; args: Record<string, unknown>; id?: string }[]; content?: string }
  | ((messages: BaseMessage[]) =>
      | string
      | {
          tool_calls: { name: string; args: Record<string, unknown>; id?: string }[];
          content?: string;
        });

/**
 * A chat model that answers from a script, for offline agents and tests. It records the names
 * of the tools bound to it (in order) and every conversation it was given. Throws when the
 * script runs out.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatModel([{ tool_calls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * ```
 */
export class ScriptedChatModel extends BaseChatModel {
  /** Tool names bound by the agent, in order. */
  boundToolNames: string[] = [];
  /** Every conversation the model was asked to continue. */
  readonly conversations: BaseMessage[][] = [];
  private readonly replies: ScriptedReply[];
  private calls = 0;

  constructor(replies: ScriptedReply[]) {
    super({});
    this.replies = replies;
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
    this.conversations.push([...messages]);
    const next = this.replies.shift();
    if (next === undefined) throw new Error('The scripted model has no more replies.');
    const reply = typeof next === 'function' ? next(messages) : next;
    this.calls += 1;
    const message =
      typeof reply === 'string'
        ? new AIMessage(reply)
        : new AIMessage({
            content: reply.content ?? '',
            tool_calls: reply.tool_calls.map((call, index) => ({
              name: call.name,
              args: call.args,
              id: call.id ?? `call_${this.calls}_${index}`,
              type: 'tool_call' as const,
            })),
          });
    return {
      generations: [{ text: typeof message.content === 'string' ? message.content : '', message }],
    };
  }
}
