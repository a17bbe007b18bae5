import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { isApprovalRequired } from '../gateway/results.js';
import { defineTool } from './define-tool.js';
import {
  type HumanInputAnswer,
  type HumanInputRequest,
  inputRequiredResult,
  isInputRequired,
  parseHumanInputAnswer,
} from './human-input.js';
import { PAUSED } from './paused.js';

/** A tool that asks the human for a name, then books (high risk: approval-gated). */
function bookingTool(ran: unknown[]) {
  return defineTool({
    name: 'book_table',
    description: 'Books a table; asks who it is for.',
    input: z.object({ when: z.string() }),
    policy: { riskLevel: 'high', sideEffects: ['booking'] },
    execute: async ({ when }, context) => {
      const request: HumanInputRequest = {
        type: 'ksadk_input',
        tool_call_id: context.callId,
        tool_name: context.toolName,
        source: 'test',
        message: 'Whose name is the booking under?',
        requested_schema: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
        },
        request_key: 'name?',
      };
      const answer = await context.askHuman(request);
      if (answer === PAUSED) return inputRequiredResult(request);
      if (answer.action !== 'accept')
        return { ok: false, error_type: 'declined', error_message: answer.action };
      ran.push({ when, name: answer.content['name'] });
      return { ok: true, booked: answer.content['name'] };
    },
  });
}

describe('a tool asking the human mid-call', () => {
  it('without a human channel the question is declined', async () => {
    const ran: unknown[] = [];
    const gateway = createToolGateway({ env: {}, approvalMode: 'full' });
    expect(await gateway.invoke(bookingTool(ran), { when: '8pm' })).toMatchObject({
      error_message: 'decline',
    });
  });

  it('pauses, and the resumed call runs once with the answer and without a second approval', async () => {
    const ran: unknown[] = [];
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
      ).toMatchObject({
        error_type: 'approval_already_used',
      });
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
    const ran: unknown[] = [];
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
