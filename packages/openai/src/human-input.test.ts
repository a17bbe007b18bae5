import { createInMemoryApprovalStore, createToolGateway } from '@ksadk/core';
import { createQuestionTool, type QuestionToolBooking } from '@ksadk/core/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createToolLoop } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';

const client = (turns: Parameters<typeof createScriptedOpenAIFetch>[0]) =>
  new OpenAI({
    apiKey: 'offline',
    baseURL: 'http://scripted.invalid/v1',
    fetch: createScriptedOpenAIFetch(turns).fetch,
    maxRetries: 0,
  });

const bookingTool = (ran: QuestionToolBooking[]) => createQuestionTool(ran).tool;

describe('a question mid-call in the OpenAI loop', () => {
  it('pends after the approval as kind "input"; the answer resumes it — also from saved JSON in another loop', async () => {
    const ran: QuestionToolBooking[] = [];
    const store = createInMemoryApprovalStore();
    const options = (tool: ReturnType<typeof bookingTool>) => ({
      model: 'm',
      tools: [tool],
      gateway: createToolGateway({ env: {}, approvalStore: store, approvalSecret: 's'.repeat(32) }),
    });
    const loop = createToolLoop(
      client([{ toolCalls: [{ name: 'book_table', args: { when: '8pm' } }] }]),
      options(bookingTool(ran)),
    );
    const first = await loop.run('book 8pm');
    if (first.status !== 'needs_approval') throw new Error('expected a pause');
    expect(first.pending.map((p) => p.kind)).toEqual(['approval']);
    const callId = first.pending[0]!.callId;
    const second = await first.resume({ [callId]: 'approve' });
    if (second.status !== 'needs_approval') throw new Error('expected the question');
    expect(second.pending).toEqual([
      expect.objectContaining({
        kind: 'input',
        callId,
        inputRequest: expect.objectContaining({ message: 'Whose name is the booking under?' }),
      }),
    ]);
    expect(ran).toEqual([]);
    // Another instance resumes the saved pause with the answer.
    const saved = JSON.stringify(second);
    const other = createToolLoop(client(['Booked for Ada.']), options(bookingTool(ran)));
    const done = await other.resume(saved, {
      [callId]: { action: 'accept', content: { name: 'Ada' } },
    });
    expect(done).toMatchObject({ status: 'completed', output: 'Booked for Ada.' });
    expect(ran).toEqual([{ when: '8pm', name: 'Ada' }]);
    // The same answer resumed again runs nothing more.
    const replay = await createToolLoop(client(['Again.']), options(bookingTool(ran))).resume(
      saved,
      {
        [callId]: { action: 'accept', content: { name: 'Ada' } },
      },
    );
    expect(JSON.stringify(replay.messages)).toContain('approval_already_used');
    expect(ran).toHaveLength(1);
  });
});
