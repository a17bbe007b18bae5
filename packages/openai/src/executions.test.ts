// Execution records through the OpenAI tool loop: a saved pause resumed more than once (a retried
// request, another instance) on instances sharing their stores runs each call once, and every
// resume gets the result of the run that happened.
import {
  createInMemoryApprovalStore,
  createInMemoryExecutionStore,
  createToolGateway,
  defineTool,
} from '@ksadk/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolLoop, resumeToolLoop } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';

const client = (turns: Parameters<typeof createScriptedOpenAIFetch>[0]) =>
  new OpenAI({
    apiKey: 'offline',
    baseURL: 'http://scripted.invalid/v1',
    fetch: createScriptedOpenAIFetch(turns).fetch,
    maxRetries: 0,
  });

type Stores = {
  approvals: ReturnType<typeof createInMemoryApprovalStore>;
  executions: ReturnType<typeof createInMemoryExecutionStore>;
};

/** One "instance": its own gateway and tools over the shared stores. */
function instance(stores: Stores, ran: string[]) {
  const invoice = defineTool({
    name: 'send_invoice',
    description: 'Sends an invoice.',
    input: z.object({ to: z.string() }),
    policy: { riskLevel: 'high', sideEffects: ['external_message'] },
    execute: ({ to }) => {
      ran.push(to);
      return { ok: true, sent: to, run: ran.length };
    },
  });
  const gateway = createToolGateway({
    env: {},
    approvalStore: stores.approvals,
    approvalSecret: 'shared-secret-of-every-instance',
    executions: { store: stores.executions, results: 'inline' },
  });
  return { tools: [invoice], gateway };
}

for (const api of ['chat', 'responses'] as const) {
  describe(`OpenAI tool loop: a saved pause resumed twice (${api})`, () => {
    it('runs the approved call once; the second resume gets its first result, marked replayed', async () => {
      const stores = {
        approvals: createInMemoryApprovalStore(),
        executions: createInMemoryExecutionStore(),
      };
      const ran: string[] = [];
      const ask = [{ toolCalls: [{ name: 'send_invoice', args: { to: 'acme' } }] }, 'Sent.'];
      const paused = await createToolLoop(client(ask), {
        model: 'm',
        api,
        ...instance(stores, ran),
      }).run('Invoice acme');
      const saved = JSON.stringify(paused);
      const callId = JSON.parse(saved).calls[0].callId as string;
      const answer = { [callId]: { type: 'approve' as const } };
      const first = await resumeToolLoop(
        client(['Sent.']),
        { model: 'm', api, ...instance(stores, ran) },
        saved,
        answer,
      );
      const second = await resumeToolLoop(
        client(['Sent.']),
        { model: 'm', api, ...instance(stores, ran) },
        saved,
        answer,
      );
      expect([first.status, second.status]).toEqual(['completed', 'completed']);
      expect(ran).toEqual(['acme']);
      const text = JSON.stringify(second.messages);
      expect(text).toContain('\\"replayed\\":true');
      expect(text).toContain('\\"sent\\":\\"acme\\"');
      expect(text).not.toContain('approval_already_used');
      const { items } = await instance(stores, ran).gateway.executions();
      expect(items.map((item) => [item.toolName, item.callId, item.outcome])).toEqual([
        ['send_invoice', callId, 'succeeded'],
      ]);
    });
  });
}
