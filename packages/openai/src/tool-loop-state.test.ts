import type { ApprovalRequest } from '@ksadk/core';
import { createInMemoryApprovalStore, createToolGateway, defineTool } from '@ksadk/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolLoop, resumeToolLoop, type ToolLoopResult } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';
import type { PendingToolCall } from './tool-call-batch.js';

/** The approval request of a pending call (these tests only pause for approvals). */
function approvalOf(pending: PendingToolCall | undefined): ApprovalRequest {
  if (pending?.kind !== 'approval') throw new Error('expected a pending approval');
  return pending.approvalRequest;
}

const SECRET = 'shared-secret-of-every-instance';
const client = (turns: Parameters<typeof createScriptedOpenAIFetch>[0]) =>
  new OpenAI({
    apiKey: 'offline',
    baseURL: 'http://scripted.invalid/v1',
    fetch: createScriptedOpenAIFetch(turns).fetch,
    maxRetries: 0,
  });

/** One "instance": its own gateway over the shared store, and its own tool object. */
function instance(store: ReturnType<typeof createInMemoryApprovalStore>, ran: string[]) {
  const tool = defineTool({
    name: 'send_invoice',
    description: 'Sends an invoice.',
    input: z.object({ to: z.string() }),
    policy: { riskLevel: 'high', sideEffects: ['external_message'] },
    execute: ({ to }) => {
      ran.push(to);
      return { ok: true, sent: to };
    },
  });
  const gateway = createToolGateway({ env: {}, approvalStore: store, approvalSecret: SECRET });
  return { tools: [tool], gateway };
}

const ask = [{ toolCalls: [{ name: 'send_invoice', args: { to: 'acme' } }] }, 'Sent.'];

for (const api of ['chat', 'responses'] as const) {
  describe(`a paused tool loop travels as JSON (${api})`, () => {
    it('is resumed by another instance; the call runs once however often the state is resumed', async () => {
      const store = createInMemoryApprovalStore();
      const ran: string[] = [];
      const a = instance(store, ran);
      const paused = await createToolLoop(client(ask), { model: 'm', api, ...a }).run(
        'Invoice acme',
      );
      expect(paused.status).toBe('needs_approval');
      const saved = JSON.stringify(paused);
      const state = JSON.parse(saved);
      expect(state).toMatchObject({ type: 'ksadk.openai.tool_loop', version: 1, api, turns: 1 });
      expect(state.calls[0]).toMatchObject({ name: 'send_invoice', status: 'pending' });
      expect(ran).toEqual([]);

      // Instance B: a fresh gateway and loop on the same store, from the saved text.
      const b = instance(store, ran);
      const callId = state.calls[0].callId as string;
      const done = await resumeToolLoop(client(['Sent.']), { model: 'm', api, ...b }, saved, {
        [callId]: { type: 'approve' },
      });
      expect(done).toMatchObject({ status: 'completed', output: 'Sent.' });
      expect(ran).toEqual(['acme']);

      // Resumed again (a retried HTTP request, another instance): the call is not run again.
      const again = await createToolLoop(client(['Already sent.']), {
        model: 'm',
        api,
        ...instance(store, ran),
      }).resume(state, { [callId]: { type: 'approve' } });
      expect(again.status).toBe('completed');
      expect(JSON.stringify(again.messages)).toContain('approval_already_used');
      expect(ran).toEqual(['acme']);
    });

    it('two instances racing to resume the same pause run the call once', async () => {
      const store = createInMemoryApprovalStore();
      const ran: string[] = [];
      const paused = await createToolLoop(client(ask), {
        model: 'm',
        api,
        ...instance(store, ran),
      }).run('Invoice acme');
      if (paused.status !== 'needs_approval') throw new Error('expected a pause');
      const state = paused.toJSON();
      const decisions = { [approvalOf(paused.pending[0]).id]: 'approve' };
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          createToolLoop(client(['Done.']), { model: 'm', api, ...instance(store, ran) }).resume(
            state,
            decisions,
          ),
        ),
      );
      expect(ran).toEqual(['acme']);
      expect(results.every((result: ToolLoopResult) => result.status === 'completed')).toBe(true);
    });

    it('a decision for another request, or none, leaves the call pending; bad states are refused', async () => {
      const store = createInMemoryApprovalStore();
      const ran: string[] = [];
      const paused = await createToolLoop(client(ask), {
        model: 'm',
        api,
        ...instance(store, ran),
      }).run('Invoice acme');
      if (paused.status !== 'needs_approval') throw new Error('expected a pause');
      const state = paused.toJSON();
      const loop = createToolLoop(client([]), { model: 'm', api, ...instance(store, ran) });
      const still = await loop.resume(state, { appr_00000000000000000000000000000000: 'approve' });
      expect(still.status).toBe('needs_approval');
      // A state edited to approve itself, or to call with other arguments, runs nothing.
      const edited = structuredClone(state) as unknown as {
        calls: { arguments: string; result: { approval_request: { id: string } } }[];
      };
      edited.calls[0]!.arguments = JSON.stringify({ to: 'evil' });
      const forged = await loop.resume(edited as never, {
        [edited.calls[0]!.result.approval_request.id]: 'approve',
      });
      expect(forged.status).toBe('needs_approval');
      expect(ran).toEqual([]);

      const other = api === 'chat' ? 'responses' : 'chat';
      const bad: [unknown, RegExp][] = [
        ['{not json', /not valid JSON/],
        [{ ...state, version: 2 }, /version 2 is not supported/],
        [{ ...state, api: other }, new RegExp(`${other} API`)],
        [{ ...state, calls: [] }, /1 to 256 calls/],
        [{ ...state, calls: [{ callId: 1 }] }, /calls\[0\] needs string/],
        [{ ...state, turns: -1 }, /turns must be a whole number/],
        [null, /not a tool loop state/],
      ];
      for (const [value, message] of bad) {
        await expect(loop.resume(value as never, {})).rejects.toMatchObject({
          code: 'invalid_state',
          message: expect.stringMatching(message),
        });
      }
    });
  });
}
