import { createOpenAI } from '@ai-sdk/openai';
import { createScriptedLanguageModel } from '@ksadk/ai-sdk/testing';
import type { LanguageModel } from 'ai';

type Prompt = { role: string; content: unknown }[];

/** The text of the last user message in a prompt. */
const lastUserText = (prompt: Prompt): string => {
  const user = [...prompt].reverse().find((message) => message.role === 'user');
  const parts = Array.isArray(user?.content) ? (user.content as { text?: string }[]) : [];
  return parts.map((part) => part.text ?? '').join(' ');
};

/**
 * The model of one request: OpenAI when `OPENAI_API_KEY` is set (and `live` is not false), else a
 * scripted one — it saves a note when asked to ("save <title>: <text>"), lists them otherwise,
 * and answers with what the tool said.
 */
export function demoModel(live = Boolean(process.env['OPENAI_API_KEY'])): LanguageModel {
  if (live) return createOpenAI()('gpt-4.1-mini');
  const answer = (options: { prompt: Prompt }) => {
    const last = options.prompt.at(-1);
    if (last?.role === 'tool')
      return `The tool said: ${JSON.stringify(last.content).slice(0, 300)}`;
    const asked = lastUserText(options.prompt);
    const save = /save\s+([^:]+):\s*(.*)/i.exec(asked);
    if (save)
      return {
        toolCalls: [{ name: 'save_note', args: { title: save[1]!.trim(), text: save[2]! } }],
      };
    return { toolCalls: [{ name: 'list_notes', args: {} }] };
  };
  return createScriptedLanguageModel([answer, answer, answer, answer] as never);
}
