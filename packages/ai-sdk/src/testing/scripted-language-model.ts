import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { createTurnScript, type ScriptedTurn } from '@ksadk/core/testing';
import { MockLanguageModelV3 } from 'ai/test';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** One scripted reply as the model's content parts. */
function contentOf(reply: ReturnType<ReturnType<typeof createTurnScript>['next']>) {
  const content: (
    | { type: 'text'; text: string }
    | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  )[] = [];
  if (reply.text) content.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls)
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
    });
  return content;
}

/**
 * An AI SDK language model that plays a script, for offline agents and tests — `generateText`,
 * `streamText` and `ToolLoopAgent` alike (built on `MockLanguageModelV3` from `ai/test`, which AI
 * SDK 6 and 7 both take). Turns use the one scripted-turn format of every KsADK adapter
 * (`'text'`, `{ toolCalls: [{ name, args }] }`, or a function of the SDK's call options); the
 * model's `doGenerateCalls` / `doStreamCalls` record what it was asked.
 *
 * @example
 * ```ts
 * const model = createScriptedLanguageModel([{ toolCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * const result = await generateText({ model, tools, prompt: 'Read note a.', stopWhen: stepCountIs(3) });
 * ```
 */
export function createScriptedLanguageModel(
  turns: ScriptedTurn<LanguageModelV3CallOptions>[],
): MockLanguageModelV3 {
  const script = createTurnScript(turns);
  return new MockLanguageModelV3({
    provider: 'ksadk-scripted',
    modelId: 'scripted',
    doGenerate: async (options) => {
      const reply = script.next(options);
      return {
        content: contentOf(reply),
        finishReason: {
          unified: reply.toolCalls.length > 0 ? 'tool-calls' : 'stop',
          raw: undefined,
        },
        usage,
        warnings: [],
      };
    },
    doStream: async (options) => {
      const reply = script.next(options);
      const parts: unknown[] = [{ type: 'stream-start', warnings: [] }];
      if (reply.text) {
        parts.push({ type: 'text-start', id: 't0' });
        parts.push({ type: 'text-delta', id: 't0', delta: reply.text });
        parts.push({ type: 'text-end', id: 't0' });
      }
      for (const part of contentOf(reply)) if (part.type === 'tool-call') parts.push(part);
      parts.push({
        type: 'finish',
        finishReason: {
          unified: reply.toolCalls.length > 0 ? 'tool-calls' : 'stop',
          raw: undefined,
        },
        usage,
      });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part as never);
            controller.close();
          },
        }),
      };
    },
  });
}
