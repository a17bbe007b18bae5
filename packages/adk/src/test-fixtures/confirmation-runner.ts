// For the ADK tests of approvals and executions: a real LlmAgent and InMemoryRunner over a
// scripted model, with a pay and a write_note tool, and how to talk to it in one of its sessions
// (say something, answer an `adk_request_confirmation`).
import { InMemoryRunner, LlmAgent, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME } from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import { defineTool, type ToolGateway } from '@ksadk/core';
import { z } from 'zod';
import { ScriptedLlm } from '../testing/scripted-llm.js';
import { toAdkTools } from '../to-adk-tools.js';

export type Turn = ConstructorParameters<typeof ScriptedLlm>[0][number];
export const callOf = (name: string, args: Record<string, unknown>): Turn => ({
  toolCalls: [{ name, args }],
});
export const text = (value: string): Turn => value;

type Event = { content?: Content };
async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}
export const confirmationOf = (events: Event[]): FunctionCall | undefined =>
  events
    .flatMap(
      (event) =>
        event.content?.parts?.flatMap((part) => (part.functionCall ? [part.functionCall] : [])) ??
        [],
    )
    .find((call) => call.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
export const responsesOf = (events: Event[]) =>
  events.flatMap(
    (event) =>
      event.content?.parts?.flatMap((part) =>
        part.functionResponse ? [part.functionResponse] : [],
      ) ?? [],
  );

function tools(runs: unknown[]) {
  const pay = defineTool({
    name: 'pay',
    description: 'Pays an amount.',
    input: z.object({ amount: z.number(), to: z.string() }),
    policy: { sideEffects: ['payment'], requiresApproval: (args) => Number(args['amount']) > 1000 },
    execute: (input) => {
      runs.push(input);
      return { ok: true, paid: input.amount };
    },
  });
  const note = defineTool({
    name: 'write_note',
    description: 'Saves a note.',
    input: z.object({ title: z.string(), body: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute: (input) => {
      runs.push(input);
      return { ok: true, saved: input.title };
    },
  });
  return [pay, note];
}

/** A runner over a scripted model, and how to talk to it in one of its sessions. */
export async function setup(gateway: ToolGateway, runs: unknown[], steps: Turn[]) {
  const agent = new LlmAgent({
    name: 'assistant',
    model: new ScriptedLlm(steps),
    tools: toAdkTools(tools(runs), { gateway }),
  });
  const runner = new InMemoryRunner({ agent, appName: 'test' });
  const open = async () =>
    (await runner.sessionService.createSession({ appName: 'test', userId: 'u1' })).id;
  const say = (sessionId: string, words: string) =>
    collect(
      runner.runAsync({
        userId: 'u1',
        sessionId,
        newMessage: { role: 'user', parts: [{ text: words }] },
      }),
    );
  const confirm = (
    sessionId: string,
    confirmation: FunctionCall,
    response: Record<string, unknown>,
  ) =>
    collect(
      runner.runAsync({
        userId: 'u1',
        sessionId,
        newMessage: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: confirmation.id,
                name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
                response,
              },
            },
          ],
        },
      }),
    );
  return { open, say, confirm };
}
