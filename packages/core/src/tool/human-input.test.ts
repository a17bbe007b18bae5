import { describe, expect, it } from 'vitest';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { isApprovalRequired } from '../gateway/results.js';
import { createQuestionTool, type QuestionToolBooking } from '../testing/question-tool.js';
import { defineJsonSchemaTool } from './define-tool.js';
import {
  type HumanInputAnswer,
  inputRequiredResult,
  isInputRequired,
  parseHumanInputAnswer,
} from './human-input.js';
import { PAUSED } from './paused.js';

const bookingTool = (ran: QuestionToolBooking[]) => createQuestionTool(ran).tool;

describe('a tool asking the human mid-call', () => {
  it('without a human channel the question is declined', async () => {
    const ran: QuestionToolBooking[] = [];
    const gateway = createToolGateway({ env: {}, approvalMode: 'full' });
    expect(await gateway.invoke(bookingTool(ran), { when: '8pm' })).toMatchObject({
      error_message: 'decline',
    });
  });

  it('pauses, and the resumed call runs once with the answer and without a second approval', async () => {
    const ran: QuestionToolBooking[] = [];
    const tool = bookingTool(ran);
    const gateway = createToolGateway({ env: {} });
    await runWithInvocationContext({ accountId: 'a', sessionId: 's' }, async () => {
      const asked = await gateway.invoke(tool, { when: '8pm' }, { callId: 'c1' });
      if (!isApprovalRequired(asked)) throw new Error('expected approval_required');
      const grant = await gateway.approve(asked.approval_request.id);
      const paused = await gateway.invoke(
        tool,
        { when: '8pm' },
        {
          callId: 'c1',
          approval: grant,
          askHuman: () => PAUSED,
        },
      );
      expect(isInputRequired(paused)).toBe(true);
      expect(paused).toMatchObject({
        input_request: { message: 'Whose name is the booking under?', tool_call_id: 'c1' },
      });
      const answer: HumanInputAnswer = { action: 'accept', content: { name: 'Ada' } };
      // Resumed (no grant presented: the approval carries over to the same call, once).
      const done = await gateway.invoke(
        tool,
        { when: '8pm' },
        { callId: 'c1', askHuman: () => answer },
      );
      expect(done).toMatchObject({ ok: true, booked: 'Ada' });
      expect(
        await gateway.invoke(tool, { when: '8pm' }, { callId: 'c1', askHuman: () => answer }),
      ).toMatchObject({ ok: true, booked: 'Ada', replayed: true });
      // Another call with other arguments still needs its own approval.
      expect(
        isApprovalRequired(
          await gateway.invoke(tool, { when: '9pm' }, { callId: 'c1', askHuman: () => answer }),
        ),
      ).toBe(true);
    });
    expect(ran).toEqual([{ when: '8pm', name: 'Ada' }]);
  });

  it("continuation 'ask' presents the carried-over approval again, already approved, for a replayed decision", async () => {
    const ran: QuestionToolBooking[] = [];
    const tool = bookingTool(ran);
    const gateway = createToolGateway({ env: {} });
    const asked = await gateway.invoke(
      tool,
      { when: '7pm' },
      { callId: 'c7', continuation: 'ask' },
    );
    if (!isApprovalRequired(asked)) throw new Error('expected approval_required');
    const grant = await gateway.approve(asked.approval_request.id);
    const paused = await gateway.invoke(
      tool,
      { when: '7pm' },
      {
        callId: 'c7',
        approval: grant,
        continuation: 'ask',
        askHuman: () => PAUSED,
      },
    );
    expect(isInputRequired(paused)).toBe(true);
    const again = await gateway.invoke(
      tool,
      { when: '7pm' },
      { callId: 'c7', continuation: 'ask' },
    );
    if (!isApprovalRequired(again)) throw new Error('expected the carried-over approval');
    expect(again.approval_request.id).not.toBe(asked.approval_request.id);
    const carried = await gateway.approve(again.approval_request.id); // already approved: a grant at once
    const answer: HumanInputAnswer = { action: 'accept', content: { name: 'Grace' } };
    expect(
      await gateway.invoke(
        tool,
        { when: '7pm' },
        { callId: 'c7', approval: carried, continuation: 'ask', askHuman: () => answer },
      ),
    ).toMatchObject({ ok: true, booked: 'Grace' });
    expect(ran).toEqual([{ when: '7pm', name: 'Grace' }]);
  });

  it('a call that stops for the human is over: the signal of whatever it left running is aborted', async () => {
    let signal: AbortSignal | undefined;
    const tool = defineJsonSchemaTool({
      name: 'ask_then_wait',
      description: 'Starts work, then asks.',
      inputSchema: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        signal = context.signal;
        const request = {
          type: 'ksadk_input',
          source: 'test',
          message: 'Which one?',
          requested_schema: { type: 'object', properties: {} },
          tool_name: 'ask_then_wait',
          tool_call_id: 'c1',
          request_key: 'which-one',
        } as const;
        const answer = await context.askHuman(request);
        if (answer === PAUSED) {
          expect(context.signal.aborted).toBe(false);
          return inputRequiredResult(request);
        }
        return { ok: true };
      },
    });
    const gateway = createToolGateway({ env: {}, approvalMode: 'full' });
    const paused = await gateway.invoke(tool, {}, { askHuman: () => PAUSED });
    expect(isInputRequired(paused)).toBe(true);
    expect(signal?.aborted).toBe(true);
    expect(String(signal?.reason)).toContain('paused for the user');
    // A synchronous tool that returns input_required is stopped the same way.
    let syncSignal: AbortSignal | undefined;
    const syncTool = defineJsonSchemaTool({
      name: 'ask_sync',
      description: 'Asks at once.',
      inputSchema: { type: 'object', properties: {} },
      execute: (_args, context) => {
        syncSignal = context.signal;
        return inputRequiredResult({
          type: 'ksadk_input',
          source: 'test',
          message: 'Which one?',
          requested_schema: { type: 'object', properties: {} },
          tool_name: 'ask_sync',
          tool_call_id: 'c2',
          request_key: 'which-one',
        });
      },
    });
    expect(isInputRequired(await gateway.invoke(syncTool, {}))).toBe(true);
    expect(syncSignal?.aborted).toBe(true);
    // An answered call keeps a live signal to the end.
    const answered = await gateway.invoke(tool, {}, { askHuman: () => ({ action: 'cancel' }) });
    expect(answered).toEqual({ ok: true });
    expect(signal?.aborted).toBe(false);
  });

  it('reads answers strictly: anything but a well-formed accept is a decline', () => {
    expect(parseHumanInputAnswer({ action: 'accept', content: { name: 'x' } })).toEqual({
      action: 'accept',
      content: { name: 'x' },
    });
    expect(parseHumanInputAnswer({ action: 'cancel' })).toEqual({ action: 'cancel' });
    for (const value of [
      undefined,
      'accept',
      { action: 'accept' },
      { action: 'accept', content: [1] },
      { action: 'ACCEPT', content: {} },
    ])
      expect(parseHumanInputAnswer(value)).toEqual({ action: 'decline' });
  });
});
