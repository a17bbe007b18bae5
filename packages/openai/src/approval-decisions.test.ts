// The approval decisions of core, through the OpenAI tool loop's pending calls — live and from
// saved state, on both APIs, with a scripted model over the real `openai` client.
import {
  createInMemoryApprovalStore,
  createToolGateway,
  defineTool,
  runWithInvocationContext,
  type ToolGateway,
} from '@ksadk/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolLoop, resumeToolLoop, type ToolLoopResult } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';

const SECRET = 'one-secret-for-every-instance';
type Turns = Parameters<typeof createScriptedOpenAIFetch>[0];
const clientFor = (turns: Turns) => {
  const scripted = createScriptedOpenAIFetch(turns);
  return {
    scripted,
    client: new OpenAI({
      apiKey: 'offline',
      baseURL: 'http://scripted.invalid/v1',
      fetch: scripted.fetch,
      maxRetries: 0,
    }),
  };
};

function transferTool(runs: unknown[]) {
  return defineTool({
    name: 'transfer',
    description: 'Transfers money.',
    input: z.object({ amount: z.number(), to: z.string() }),
    policy: {
      sideEffects: ['payment'],
      riskLevel: (args) => (Number(args['amount']) > 1000 ? 'high' : 'low'),
    },
    execute: (input) => {
      runs.push(input);
      return { ok: true, sent: input.amount, to: input.to };
    },
  });
}

const call = (amount: number, to = 'acme'): Turns[number] => ({
  toolCalls: [{ name: 'transfer', args: { amount, to } }],
});
const pendingOf = (result: ToolLoopResult) => {
  if (result.status !== 'needs_approval')
    throw new Error(`expected needs_approval, got ${result.status}`);
  return result;
};

for (const api of ['chat', 'responses'] as const) {
  describe(`OpenAI tool loop: approvals decided per call, edited, standing, listed, audited (${api})`, () => {
    const session = { accountId: 'acct-oai', userId: 'u', sessionId: `s-${api}` };
    const loopOf = (gateway: ToolGateway, runs: unknown[], turns: Turns) => {
      const { client, scripted } = clientFor(turns);
      return {
        loop: createToolLoop(client, { model: 'm', api, gateway, tools: [transferTool(runs)] }),
        scripted,
      };
    };

    it('a per-call policy lets a small transfer through and asks for a large one', async () => {
      const runs: unknown[] = [];
      const gateway = createToolGateway({ env: {} });
      await runWithInvocationContext(session, async () => {
        expect((await loopOf(gateway, runs, [call(10), 'Sent.']).loop.run('send 10')).status).toBe(
          'completed',
        );
        const large = pendingOf(
          await loopOf(gateway, runs, [call(10_000), 'Sent.']).loop.run('send 10000'),
        );
        expect(large.pending[0]).toMatchObject({
          kind: 'approval',
          approvalRequest: { risk_level: 'high' },
        });
      });
      expect(runs).toEqual([{ amount: 10, to: 'acme' }]);
    });

    it('the human edits a pending call, from saved state in another instance: exactly the edited call runs once', async () => {
      const store = createInMemoryApprovalStore();
      const runs: unknown[] = [];
      const a = createToolGateway({ env: {}, approvalStore: store, approvalSecret: SECRET });
      const saved = await runWithInvocationContext(session, async () =>
        JSON.stringify(pendingOf(await loopOf(a, runs, [call(50_000, 'mallory')]).loop.run('pay'))),
      );
      const callId = JSON.parse(saved).calls[0].callId as string;
      const b = createToolGateway({ env: {}, approvalStore: store, approvalSecret: SECRET });
      const { client, scripted } = clientFor(['Sent 500 to acme instead.']);
      const done = await runWithInvocationContext(session, () =>
        resumeToolLoop(
          client,
          { model: 'm', api, gateway: b, tools: [transferTool(runs)] },
          saved,
          {
            [callId]: { action: 'edit', args: { amount: 500, to: 'acme' } },
          },
        ),
      );
      expect(done.status).toBe('completed');
      expect(runs).toEqual([{ amount: 500, to: 'acme' }]);
      const sent = JSON.stringify(scripted.requests.at(-1));
      expect(sent).toContain('arguments_edited');
      expect(sent).toContain('edited_arguments');
      // Resumed again: nothing runs twice.
      await runWithInvocationContext(session, () =>
        resumeToolLoop(
          clientFor(['ok']).client,
          { model: 'm', api, gateway: b, tools: [transferTool(runs)] },
          saved,
          {
            [callId]: { action: 'edit', args: { amount: 500, to: 'acme' } },
          },
        ),
      );
      expect(runs).toHaveLength(1);
      // The decision made on instance b is in the audit log read by instance a.
      const audit = await runWithInvocationContext(session, () => a.auditLog());
      expect(audit.items.map((entry) => `${entry.event}/${entry.how ?? ''}`)).toEqual(
        expect.arrayContaining(['approved/edited', 'used/edited']),
      );
    });

    it('"always for this session" lets the next three calls through; another session asks; revoking asks again', async () => {
      const runs: unknown[] = [];
      const gateway = createToolGateway({ env: {} });
      await runWithInvocationContext(session, async () => {
        const first = pendingOf(
          await loopOf(gateway, runs, [call(2_000), 'Sent.']).loop.run('pay'),
        );
        expect(
          (
            await first.resume({
              [first.pending[0]!.callId]: { action: 'approve', always: 'session' },
            })
          ).status,
        ).toBe('completed');
        for (const amount of [3_000, 4_000, 5_000])
          expect(
            (await loopOf(gateway, runs, [call(amount), 'Sent.']).loop.run('pay')).status,
          ).toBe('completed');
        const [grant] = (await gateway.listStandingGrants()).items;
        await gateway.revokeStandingGrant(grant!.id);
        pendingOf(await loopOf(gateway, runs, [call(6_000), 'Sent.']).loop.run('pay'));
      });
      await runWithInvocationContext({ ...session, sessionId: 'another' }, async () => {
        pendingOf(await loopOf(gateway, runs, [call(7_000), 'Sent.']).loop.run('pay'));
        // Only this session's waiting call is in this session's inbox view; none of another account's.
        expect((await gateway.listApprovalRequests({ sessionId: 'another' })).items).toHaveLength(
          1,
        );
      });
      expect(
        (
          await runWithInvocationContext({ accountId: 'acct-else' }, () =>
            gateway.listApprovalRequests(),
          )
        ).items,
      ).toEqual([]);
      expect(runs.map((run) => (run as { amount: number }).amount)).toEqual([
        2_000, 3_000, 4_000, 5_000,
      ]);
    });
  });
}
