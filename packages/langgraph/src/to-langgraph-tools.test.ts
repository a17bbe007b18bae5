import { createToolGateway, defineTool, KsadkError } from '@ksadk/core';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKsadkMiddleware } from './ksadk-middleware.js';
import { toLangGraphTools } from './to-langgraph-tools.js';

function setup() {
  const writes: unknown[] = [];
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Save a note.',
    input: z.object({ title: z.string(), body: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute: (input) => {
      writes.push(input);
      return { ok: true, saved: input.title };
    },
  });
  const readNote = defineTool({
    name: 'read_note',
    description: 'Read a note.',
    input: z.object({ title: z.string() }),
    execute: ({ title }) => ({ ok: true, title, body: 'hello' }),
  });
  const gateway = createToolGateway({ env: {} });
  return { writes, writeNote, readNote, gateway };
}

const toolMessages = (messages: BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe('toLangGraphTools with createAgent', () => {
  it('runs a low-risk tool straight through the gateway', async () => {
    const { gateway, readNote } = setup();
    const model = fakeModel()
      .respondWithTools([{ name: 'read_note', args: { title: 'a' }, id: 'call_r' }])
      .respond(new AIMessage('done'));
    const agent = createAgent({ model, tools: toLangGraphTools([readNote], { gateway }) });
    const out = await agent.invoke({ messages: [{ role: 'user', content: 'read a' }] });
    const [message] = toolMessages(out.messages);
    expect(JSON.parse(message!.content as string)).toEqual({ ok: true, title: 'a', body: 'hello' });
    expect(message!.artifact).toEqual({ ok: true, title: 'a', body: 'hello' });
  });

  it('interrupts a gated call with the approval request, and runs it once after approval', async () => {
    const { gateway, writeNote, writes } = setup();
    const model = fakeModel()
      .respondWithTools([
        {
          name: 'write_note',
          args: { title: 't', body: 'b', approval: { approved: true } },
          id: 'call_w',
        },
      ])
      .respond(new AIMessage('saved'));
    const agent = createAgent({
      model,
      tools: toLangGraphTools([writeNote], { gateway }),
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: 'thread-1' } };
    const paused = await agent.invoke({ messages: [{ role: 'user', content: 'save' }] }, config);
    expect(writes).toHaveLength(0);
    const interrupts = (paused as { __interrupt__?: { value: unknown }[] }).__interrupt__;
    expect(interrupts).toHaveLength(1);
    expect(interrupts![0]!.value).toMatchObject({
      type: 'ksadk_approval',
      tool_call_id: 'call_w',
      approval_request: {
        tool_name: 'write_note',
        risk_level: 'medium',
        side_effects: ['notes_write'],
        arguments: { title: 't', body: 'b' },
      },
    });
    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: 'approve' }] } }),
      config,
    );
    expect(writes).toEqual([{ title: 't', body: 'b' }]);
    const [message] = toolMessages(done.messages);
    expect(JSON.parse(message!.content as string)).toEqual({ ok: true, saved: 't' });
    expect(done.messages.at(-1)?.content).toBe('saved');
  });

  it('returns approval_rejected to the model when the host rejects', async () => {
    const { gateway, writeNote, writes } = setup();
    const model = fakeModel()
      .respondWithTools([{ name: 'write_note', args: { title: 't', body: 'b' }, id: 'call_w' }])
      .respond(new AIMessage('ok, not saved'));
    const agent = createAgent({
      model,
      tools: toLangGraphTools([writeNote], { gateway }),
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: 'thread-2' } };
    await agent.invoke({ messages: [{ role: 'user', content: 'save' }] }, config);
    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: 'reject', message: 'not now' }] } }),
      config,
    );
    expect(writes).toHaveLength(0);
    const [message] = toolMessages(done.messages);
    expect(JSON.parse(message!.content as string)).toMatchObject({
      ok: false,
      type: 'approval_rejected',
      reason: 'not now',
    });
  });

  it('without a checkpointer, a gated call fails with a clear KsadkError', async () => {
    const { gateway, writeNote, writes } = setup();
    const model = fakeModel()
      .respondWithTools([{ name: 'write_note', args: { title: 't', body: 'b' }, id: 'call_w' }])
      .respond(new AIMessage('unreachable'));
    const [tool] = toLangGraphTools([writeNote], { gateway });
    // Directly, as a ToolNode with handleToolErrors: false or any wrapping middleware sees it:
    await expect(
      tool!.invoke({
        name: 'write_note',
        args: { title: 't', body: 'b' },
        id: 'c1',
        type: 'tool_call',
      }),
    ).rejects.toSatisfy(
      (error: unknown) => KsadkError.isInstance(error) && error.code === 'unsupported',
    );
    const agent = createAgent({ model, tools: [tool!] });
    const out = await agent.invoke({ messages: [{ role: 'user', content: 'save' }] });
    expect(writes).toHaveLength(0);
    expect(String(toolMessages(out.messages)[0]?.content)).toMatch(
      /needs a human decision.*checkpointer/,
    );
  });
});

describe('createKsadkMiddleware', () => {
  it('turns a gated call without a checkpointer into a failed run, not a tool message', async () => {
    const { gateway, writeNote, writes } = setup();
    const model = fakeModel()
      .respondWithTools([{ name: 'write_note', args: { title: 't', body: 'b' }, id: 'call_w' }])
      .respond(new AIMessage('unreachable'));
    const agent = createAgent({
      model,
      tools: toLangGraphTools([writeNote], { gateway }),
      middleware: [await createKsadkMiddleware()],
    });
    const run = agent.invoke({ messages: [{ role: 'user', content: 'save' }] });
    await expect(run).rejects.toThrowError(/needs a human decision.*checkpointer/);
    expect(writes).toHaveLength(0);
  });

  it('keeps the default error message for other tool failures', async () => {
    const { gateway } = setup();
    const model = fakeModel()
      .respondWithTools([{ name: 'broken', args: {}, id: 'call_b' }])
      .respond(new AIMessage('recovered'));
    const broken = tool(
      () => {
        throw new Error('plain failure');
      },
      { name: 'broken', description: 'Breaks.', schema: z.object({}) },
    );
    const agent = createAgent({
      model,
      tools: [broken, ...toLangGraphTools([], { gateway })],
      middleware: [await createKsadkMiddleware()],
    });
    const out = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    expect(String(toolMessages(out.messages)[0]?.content)).toMatch(/plain failure/);
    expect(out.messages.at(-1)?.content).toBe('recovered');
  });
});

describe('session binding', () => {
  it('uses the LangGraph thread as the session, so approvals are bound to it', async () => {
    const { gateway } = setup();
    const seen: string[] = [];
    const probe = defineTool({
      name: 'probe',
      description: 'Reports the session.',
      input: z.object({}),
      execute: (_input, context) => {
        seen.push(String(context.invocation.sessionId));
        return { ok: true };
      },
    });
    const [probeTool] = toLangGraphTools([probe], { gateway });
    await probeTool!.invoke(
      { name: 'probe', args: {}, id: 'p', type: 'tool_call' },
      { configurable: { thread_id: 'thread-9' } },
    );
    expect(seen).toEqual(['thread-9']);
  });
});
