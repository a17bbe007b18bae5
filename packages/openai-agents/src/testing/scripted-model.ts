import { createTurnScript, type ScriptedTurn } from '@ksadk/core/testing';
import {
  type AssistantMessageItem,
  type FunctionCallItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
  Usage,
} from '@openai/agents';

/** A scripted model: the SDK's `Model`, and what it was asked. */
export interface ScriptedModel extends Model {
  /** Every request the SDK made of it, in order (streamed or not). */
  readonly requests: readonly ModelRequest[];
}

const usage = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/**
 * A model for the OpenAI Agents SDK that plays a script, for offline agents and tests — `run()`,
 * `Runner.run()` and streamed runs (`{ stream: true }`) alike. Turns use the one scripted-turn
 * format of every KsADK adapter (`'text'`, `{ toolCalls: [{ id?, name, args }] }`, or a function
 * of the SDK's `ModelRequest` that returns one); `requests` records what the model was asked.
 *
 * @example
 * ```ts
 * const model = createScriptedModel([{ toolCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * const agent = new Agent({ name: 'notes', model, tools: toOpenAIAgentsTools([readNote], { gateway }) });
 * ```
 */
export function createScriptedModel(turns: ScriptedTurn<ModelRequest>[]): ScriptedModel {
  const script = createTurnScript(turns);
  const requests: ModelRequest[] = [];
  let count = 0;
  const respond = (
    request: ModelRequest,
  ): { id: string; text: string | null; output: (AssistantMessageItem | FunctionCallItem)[] } => {
    requests.push(request);
    const reply = script.next(request);
    count += 1;
    const id = `resp_scripted_${count}`;
    const output: (AssistantMessageItem | FunctionCallItem)[] = [];
    if (reply.text !== null)
      output.push({
        type: 'message',
        id: `msg_${count}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: reply.text }],
      });
    for (const call of reply.toolCalls)
      output.push({
        type: 'function_call',
        id: `fc_${call.id}`,
        callId: call.id,
        name: call.name,
        status: 'completed',
        arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
      });
    return { id, text: reply.text, output };
  };
  return {
    requests,
    async getResponse(request): Promise<ModelResponse> {
      const { id, output } = respond(request);
      return { responseId: id, output, usage: new Usage(usage) };
    },
    async *getStreamedResponse(request): AsyncIterable<StreamEvent> {
      const { id, text, output } = respond(request);
      yield { type: 'response_started' };
      if (text !== null) yield { type: 'output_text_delta', delta: text };
      yield { type: 'response_done', response: { id, usage, output } };
    },
  };
}
