// Execution records through LangGraph: a checkpoint resumed after an approval pause re-runs the
// node that paused, and with it every call that node had already made. The ungated write among
// them runs once; the replay gets its recorded result.
import { createToolGateway, defineTool, runWithInvocationContext } from '@ksadk/core';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Annotation, Command, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toLangGraphTools } from './to-langgraph-tools.js';

const appendLog = (runs: unknown[]) =>
  defineTool({
    name: 'append_log',
    description: 'Appends a line to the log.',
    input: z.object({ line: z.string() }),
    policy: { riskLevel: 'low', sideEffects: ['log_write'] },
    execute: ({ line }) => {
      runs.push(line);
      return { ok: true, line, run: runs.length };
    },
  });

const pay = (runs: unknown[]) =>
  defineTool({
    name: 'pay',
    description: 'Pays an amount.',
    input: z.object({ amount: z.number() }),
    policy: { riskLevel: 'high', sideEffects: ['payment'] },
    execute: ({ amount }) => {
      runs.push(amount);
      return { ok: true, paid: amount };
    },
  });

const toolResults = (messages: BaseMessage[]) =>
  messages
    .filter((message): message is ToolMessage => ToolMessage.isInstance(message))
    .map((message) => JSON.parse(String(message.content)) as Record<string, unknown>);

describe('LangGraph: a resumed checkpoint runs an ungated write once', () => {
  it('the write that ran before the approval pause is not run again when the node resumes', async () => {
    const logs: unknown[] = [];
    const payments: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const tools = toLangGraphTools([appendLog(logs), pay(payments)], { gateway });
    const model = fakeModel()
      .respondWithTools([
        { name: 'append_log', args: { line: 'paying 500' }, id: 'call_log' },
        { name: 'pay', args: { amount: 500 }, id: 'call_pay' },
      ])
      .respond(new AIMessage('done'));
    const agent = createAgent({ model, tools, checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: 't-exec' } };
    await runWithInvocationContext({ accountId: 'acct-lg', userId: 'u1' }, async () => {
      const paused = await agent.invoke(
        { messages: [{ role: 'user', content: 'log and pay' }] },
        thread,
      );
      expect((paused as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
      expect(logs).toEqual(['paying 500']);
      const done = await agent.invoke(new Command({ resume: { action: 'approve' } }), thread);
      expect(logs).toEqual(['paying 500']);
      expect(payments).toEqual([500]);
      // LangGraph's own tools node runs each call as a task of its own: only the paused one reran.
      expect(toolResults(done.messages)).toEqual([
        expect.objectContaining({ ok: true, line: 'paying 500', run: 1 }),
        expect.objectContaining({ ok: true, paid: 500 }),
      ]);
      const { items } = await gateway.executions();
      expect(items.map((item) => [item.toolName, item.callId, item.outcome])).toEqual([
        ['pay', 'call_pay', 'succeeded'],
        ['append_log', 'call_log', 'succeeded'],
      ]);
    });
  });
});

describe('LangGraph: a node of its own that makes several calls', () => {
  it('re-runs on resume, and the call it had already made returns its first result without running', async () => {
    const logs: unknown[] = [];
    const payments: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const [log, payment] = toLangGraphTools([appendLog(logs), pay(payments)], { gateway });
    const State = Annotation.Root({
      results: Annotation<unknown[]>({ reducer: (_old, next) => next, default: () => [] }),
    });
    // A hand-written tools node: both calls of one turn, one after the other.
    const graph = new StateGraph(State)
      .addNode('tools', async () => {
        const first = await log!.invoke({
          type: 'tool_call',
          id: 'call_log',
          name: 'append_log',
          args: { line: 'paying 500' },
        });
        const second = await payment!.invoke({
          type: 'tool_call',
          id: 'call_pay',
          name: 'pay',
          args: { amount: 500 },
        });
        return { results: [first.content, second.content].map((text) => JSON.parse(String(text))) };
      })
      .addEdge(START, 'tools')
      .addEdge('tools', END)
      .compile({ checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: 't-node' } };
    await runWithInvocationContext({ accountId: 'acct-lg', userId: 'u1' }, async () => {
      const paused = await graph.invoke({}, thread);
      expect((paused as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
      expect(logs).toEqual(['paying 500']);
      const done = await graph.invoke(new Command({ resume: { action: 'approve' } }), thread);
      expect(logs).toEqual(['paying 500']);
      expect(payments).toEqual([500]);
      expect(done.results).toEqual([
        expect.objectContaining({ ok: true, line: 'paying 500', run: 1, replayed: true }),
        expect.objectContaining({ ok: true, paid: 500 }),
      ]);
    });
  });
});
