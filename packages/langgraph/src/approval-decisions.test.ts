// The approval decisions of core, through LangGraph's own human-in-the-loop: a real createAgent
// with a scripted model, a MemorySaver checkpointer, interrupts and Command resumes.
import {
  createToolGateway,
  defineTool,
  isApprovalRequired,
  runWithInvocationContext,
} from '@ksadk/core';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toLangGraphTools } from './to-langgraph-tools.js';

function payTool(runs: unknown[]) {
  return defineTool({
    name: 'pay',
    description: 'Pays an amount to someone.',
    input: z.object({ amount: z.number(), to: z.string() }),
    policy: {
      sideEffects: ['payment'],
      requiresApproval: (args) =>
        Number(args['amount']) > 1000 ? { requiresApproval: true, reason: 'over 1,000 €' } : false,
    },
    describeCall: ({ amount, to }) => `Pay ${String(amount)} € to ${String(to)}`,
    execute: (input) => {
      runs.push(input);
      return { ok: true, paid: input.amount, to: input.to };
    },
  });
}

function noteTool(runs: unknown[]) {
  return defineTool({
    name: 'write_note',
    description: 'Save a note.',
    input: z.object({ title: z.string(), body: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute: (input) => {
      runs.push(input);
      return { ok: true, saved: input.title };
    },
  });
}

const lastTool = (messages: BaseMessage[]) =>
  JSON.parse(
    String(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)?.content),
  ) as Record<string, unknown>;
const interruptsOf = (state: unknown) =>
  (state as { __interrupt__?: { value: { approval_request: Record<string, unknown> } }[] })
    .__interrupt__ ?? [];

/** An agent whose scripted model calls `calls` one per turn (each answered by "done"). */
function agentFor(
  tools: ReturnType<typeof toLangGraphTools>,
  calls: { name: string; args: Record<string, unknown> }[],
) {
  let model = fakeModel();
  calls.forEach((call, index) => {
    model = model
      .respondWithTools([{ ...call, id: `call_${index}` }])
      .respond(new AIMessage('done'));
  });
  return createAgent({ model, tools, checkpointer: new MemorySaver() });
}

const say = (text: string) => ({ messages: [{ role: 'user', content: text }] });
const thread = (id: string) => ({ configurable: { thread_id: id } });

describe('LangGraph: approvals decided per call, edited, standing, listed, audited', () => {
  it('a per-call policy lets a small payment through and asks for a large one', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const agent = agentFor(toLangGraphTools([payTool(runs)], { gateway }), [
      { name: 'pay', args: { amount: 10, to: 'ACME' } },
      { name: 'pay', args: { amount: 10_000, to: 'ACME' } },
    ]);
    const small = await agent.invoke(say('pay 10'), thread('t-pay'));
    expect(interruptsOf(small)).toEqual([]);
    expect(lastTool(small.messages)).toMatchObject({ ok: true, paid: 10 });
    const large = await agent.invoke(say('pay 10000'), thread('t-pay'));
    expect(interruptsOf(large)[0]?.value.approval_request).toMatchObject({
      tool_name: 'pay',
      why: 'over 1,000 €',
      summary: 'Pay 10000 € to ACME',
    });
    expect(runs).toEqual([{ amount: 10, to: 'ACME' }]);
  });

  it('the human edits the call: exactly the edited call runs, once, and the model is told', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const agent = agentFor(toLangGraphTools([noteTool(runs)], { gateway }), [
      { name: 'write_note', args: { title: 'Plan', body: 'fire everyone' } },
    ]);
    await agent.invoke(say('save'), thread('t-edit'));
    const done = await agent.invoke(
      new Command({ resume: { action: 'edit', args: { title: 'Plan', body: 'hire two people' } } }),
      thread('t-edit'),
    );
    expect(runs).toEqual([{ title: 'Plan', body: 'hire two people' }]);
    expect(lastTool(done.messages)).toMatchObject({
      ok: true,
      arguments_edited: true,
      edited_arguments: { title: 'Plan', body: 'hire two people' },
    });
  });

  it('"always for this session": the next three calls run without asking, another thread asks, revoking asks again', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const tools = toLangGraphTools([noteTool(runs)], { gateway });
    const calls = [0, 1, 2, 3, 4].map((index) => ({
      name: 'write_note',
      args: { title: `n${index}`, body: 'b' },
    }));
    const agent = agentFor(tools, calls);
    const account = { accountId: 'acct-lg', userId: 'u1' };
    await runWithInvocationContext(account, async () => {
      expect(interruptsOf(await agent.invoke(say('save'), thread('t-always')))).toHaveLength(1);
      await agent.invoke(
        new Command({ resume: { action: 'approve', always: 'session' } }),
        thread('t-always'),
      );
      for (let turn = 0; turn < 3; turn += 1) {
        const state = await agent.invoke(say('again'), thread('t-always'));
        expect(interruptsOf(state)).toEqual([]);
        expect(lastTool(state.messages)).toMatchObject({ ok: true });
      }
      expect(runs).toHaveLength(4);
      const other = agentFor(tools, [{ name: 'write_note', args: { title: 'x', body: 'b' } }]);
      expect(interruptsOf(await other.invoke(say('save'), thread('t-other')))).toHaveLength(1);
      const [grant] = (await gateway.listStandingGrants()).items;
      expect(grant).toMatchObject({
        scope: 'session',
        sessionId: 't-always',
        toolName: 'write_note',
      });
      await gateway.revokeStandingGrant(grant!.id);
      expect(interruptsOf(await agent.invoke(say('once more'), thread('t-always')))).toHaveLength(
        1,
      );
      // The inbox of this account holds the two waiting calls; another account's holds none.
      expect(
        (await gateway.listApprovalRequests()).items.map((item) => item.session_id).sort(),
      ).toEqual(['t-always', 't-other']);
      const audit = await gateway.auditLog({ limit: 200 });
      expect(
        audit.items.filter((e) => e.event === 'used' && e.how === 'standing_grant'),
      ).toHaveLength(3);
    });
    expect(
      (
        await runWithInvocationContext({ accountId: 'acct-other' }, () =>
          gateway.listApprovalRequests(),
        )
      ).items,
    ).toEqual([]);
    expect(runs).toHaveLength(4);
  });

  it('a standing rejection from the resume refuses the next call without an interrupt', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const agent = agentFor(toLangGraphTools([noteTool(runs)], { gateway }), [
      { name: 'write_note', args: { title: 'a', body: 'b' } },
      { name: 'write_note', args: { title: 'c', body: 'd' } },
    ]);
    await agent.invoke(say('save'), thread('t-no'));
    const rejected = await agent.invoke(
      new Command({
        resume: { decisions: [{ type: 'reject', message: 'never here', always: 'session' }] },
      }),
      thread('t-no'),
    );
    expect(lastTool(rejected.messages)).toMatchObject({ error_type: 'approval_rejected' });
    const next = await agent.invoke(say('save again'), thread('t-no'));
    expect(interruptsOf(next)).toEqual([]);
    expect(lastTool(next.messages)).toMatchObject({ error_type: 'approval_rejected' });
    expect(runs).toEqual([]);
    expect(isApprovalRequired(lastTool(next.messages) as never)).toBe(false);
  });
});
