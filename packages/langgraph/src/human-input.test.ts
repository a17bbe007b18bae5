import { createToolGateway } from '@ksadk/core';
import { createQuestionTool, type QuestionToolBooking } from '@ksadk/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { createKsadkAgent } from './create-ksadk-agent.js';
import { ScriptedChatModel } from './testing/scripted-chat-model.js';

const bookingTool = (ran: QuestionToolBooking[]) => createQuestionTool(ran).tool;

const interruptsOf = (state: unknown) =>
  ((state as { __interrupt__?: { value: { type: string } }[] }).__interrupt__ ?? []).map(
    (i) => i.value,
  );

describe('a question mid-call in LangGraph', () => {
  it('interrupts after the approval, resumes with the answer, and runs the tool once', async () => {
    const ran: QuestionToolBooking[] = [];
    const { agent, close } = await createKsadkAgent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'book_table', args: { when: '8pm' } }] },
        'Booked.',
      ]),
      tools: [bookingTool(ran)],
      gateway: createToolGateway({ env: {} }),
      checkpointer: new MemorySaver(),
      environment: false,
    });
    const config = { configurable: { thread_id: 'book-1' } };
    const first = await agent.invoke({ messages: [{ role: 'user', content: 'book 8pm' }] }, config);
    expect(interruptsOf(first).map((value) => value.type)).toEqual(['ksadk_approval']);
    const second = await agent.invoke(
      new Command({ resume: { decisions: [{ type: 'approve' }] } }),
      config,
    );
    expect(interruptsOf(second)).toEqual([
      expect.objectContaining({
        type: 'ksadk_input',
        message: 'Whose name is the booking under?',
        tool_name: 'book_table',
      }),
    ]);
    expect(ran).toEqual([]);
    const done = await agent.invoke(
      new Command({ resume: { action: 'accept', content: { name: 'Ada' } } }),
      config,
    );
    expect(interruptsOf(done)).toEqual([]);
    expect(ran).toEqual([{ when: '8pm', name: 'Ada' }]);
    const messages = (done as { messages: { content: unknown }[] }).messages;
    expect(messages.at(-1)?.content).toBe('Booked.');
    expect(JSON.stringify(messages)).toContain('"booked":"Ada"');
    await close();
  });

  it('a declined question reaches the model as the tool result; nothing runs', async () => {
    const ran: QuestionToolBooking[] = [];
    const { agent, close } = await createKsadkAgent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'book_table', args: { when: '9pm' } }] },
        'Not booked.',
      ]),
      tools: [bookingTool(ran)],
      gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
      checkpointer: new MemorySaver(),
      environment: false,
    });
    const config = { configurable: { thread_id: 'book-2' } };
    const first = await agent.invoke({ messages: [{ role: 'user', content: 'book 9pm' }] }, config);
    expect(interruptsOf(first).map((value) => value.type)).toEqual(['ksadk_input']);
    const done = await agent.invoke(new Command({ resume: { action: 'decline' } }), config);
    expect(ran).toEqual([]);
    expect(JSON.stringify((done as { messages: unknown[] }).messages)).toContain(
      '"error_message":"decline"',
    );
    await close();
  });
});
