// Quick start: KsADK tools in a LangGraph agent, offline. Swap ScriptedChatModel for a real chat
// model (ChatOpenAI, …) and nothing else changes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolGateway, defineTool } from '@ksadk/core';
import { createKsadkAgent } from '@ksadk/langgraph';
import { ScriptedChatModel } from '@ksadk/langgraph/testing';
import { Command } from '@langchain/langgraph';
import { z } from 'zod';

// 1. Your own tool. Medium risk: the gateway asks the host before it runs.
const saveNote = defineTool({
  name: 'save_note',
  description: 'Save a note for the user. Needs their approval.',
  input: z.object({ title: z.string(), body: z.string() }),
  policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
  execute: ({ title }) => ({ ok: true, saved: title }),
});

// 2. The model. The scripted one plays turns — a reply ({ toolCalls } or text), or a function of
//    the conversation it is sent that returns one — and records what it saw: `boundToolNames`
//    (the tools the agent bound) and `requests` (every conversation).
const model = new ScriptedChatModel([
  {
    toolCalls: [
      { name: 'read_workspace_file', args: { path: 'trip.md' } },
      { name: 'save_note', args: { title: 'Oslo', body: 'Pack an umbrella.' } },
    ],
  },
  (messages) =>
    messages.some((message) => String(message.content).includes('"saved":"Oslo"'))
      ? 'Noted: pack an umbrella.'
      : 'The note was not saved.',
]);

// 3. Load: your tools first, then the built-ins — here only the workspace tools, confined to
//    one root. MCP servers come from KSADK_MCP_SERVERS unless you pass `mcp` (`environment:
//    false` reads no variable at all).
const root = await mkdtemp(path.join(tmpdir(), 'ksadk-quickstart-'));
const { agent, assembly, close } = await createKsadkAgent({
  model,
  tools: [saveNote],
  builtins: { include: 'workspace' },
  catalog: { workspace: { root } },
  gateway: createToolGateway({ approvalMode: 'risk' }),
});
console.log('sources:', assembly.sources.save_note, assembly.sources.read_workspace_file); // own builtin

// 4. Run. A gated call pauses the graph (createKsadkAgent adds a checkpointer). The paused turn's
//    other calls (the read) show up only after the resume: LangGraph re-runs the whole step.
const config = { configurable: { thread_id: 'trip-1' } };
let state = await agent.invoke({ messages: [{ role: 'user', content: 'Note: umbrella' }] }, config);
while (state.__interrupt__?.length) {
  const resume: Record<string, unknown> = {};
  for (const pause of state.__interrupt__) {
    const { approval_request: request } = pause.value as {
      approval_request: { tool_name: string };
    };
    console.log('approve?', request.tool_name); // the host asks the human here
    resume[pause.id as string] = { decisions: [{ type: 'approve' }] };
  }
  state = await agent.invoke(new Command({ resume }), config);
}
console.log('answer:', state.messages.at(-1)?.content);
console.log('first bound tool:', model.boundToolNames[0]); // save_note: yours come first
await close(); // when the agent is retired: ends MCP sessions
await rm(root, { recursive: true, force: true }); // this demo's scratch workspace
