import {
  InMemoryRunner,
  LlmAgent,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import { createToolGateway } from '@ksadk/core';
import { createQuestionTool, type QuestionToolBooking } from '@ksadk/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

const bookingTool = (ran: QuestionToolBooking[]) => createQuestionTool(ran).tool;

async function turn(runner: InMemoryRunner, sessionId: string, message: Content) {
  const contents: Content[] = [];
  for await (const event of runner.runAsync({ userId: 'u', sessionId, newMessage: message }))
    if (event.content) contents.push(event.content);
  return contents;
}

const confirmationOf = (contents: Content[]): FunctionCall | undefined =>
  contents
    .flatMap((content) => content.parts ?? [])
    .map((part) => part.functionCall)
    .find((call) => call?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);

const answer = (id: string, response: Record<string, unknown>): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id, name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response } }],
});

describe('a question mid-call under ADK', () => {
  it('is a confirmation of its own; its payload answer runs the tool once', async () => {
    const ran: QuestionToolBooking[] = [];
    const agent = new LlmAgent({
      name: 'host',
      model: new ScriptedLlm([
        { toolCalls: [{ name: 'book_table', args: { when: '8pm' } }] },
        'Booked.',
      ]),
      tools: toAdkTools([bookingTool(ran)], {
        gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
      }),
    });
    const runner = new InMemoryRunner({ agent, appName: 'booking' });
    const session = await runner.sessionService.createSession({ appName: 'booking', userId: 'u' });
    const first = await turn(runner, session.id, { role: 'user', parts: [{ text: 'book 8pm' }] });
    const question = confirmationOf(first);
    expect(question?.args).toMatchObject({
      toolConfirmation: {
        payload: { type: 'ksadk_input', message: 'Whose name is the booking under?' },
      },
    });
    expect(ran).toEqual([]);
    const second = await turn(
      runner,
      session.id,
      answer(question!.id!, {
        confirmed: true,
        payload: { action: 'accept', content: { name: 'Ada' } },
      }),
    );
    expect(ran).toEqual([{ when: '8pm', name: 'Ada' }]);
    expect(JSON.stringify(second)).toContain('"booked":"Ada"');
  });

  it('after an approval confirmation in the same call, ADK cannot pause again: the question is declined', async () => {
    const ran: QuestionToolBooking[] = [];
    const agent = new LlmAgent({
      name: 'host',
      model: new ScriptedLlm([
        { toolCalls: [{ name: 'book_table', args: { when: '9pm' } }] },
        'Could not book.',
      ]),
      tools: toAdkTools([bookingTool(ran)], { gateway: createToolGateway({ env: {} }) }),
    });
    const runner = new InMemoryRunner({ agent, appName: 'booking' });
    const session = await runner.sessionService.createSession({ appName: 'booking', userId: 'u' });
    const first = await turn(runner, session.id, { role: 'user', parts: [{ text: 'book 9pm' }] });
    const approval = confirmationOf(first);
    expect(approval?.args).toMatchObject({
      toolConfirmation: { payload: { type: 'ksadk_approval' } },
    });
    const second = await turn(runner, session.id, answer(approval!.id!, { confirmed: true }));
    expect(ran).toEqual([]);
    expect(JSON.stringify(second)).toContain('"error_message":"decline"');
  });
});
