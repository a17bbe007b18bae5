// Quick start: KsADK tools in a Google ADK LlmAgent, offline. Swap ScriptedLlm for a Gemini model
// name ('gemini-2.5-flash', with GEMINI_API_KEY) and nothing else changes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InMemoryRunner, LlmAgent, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME } from '@google/adk';
import { loadAdkAgent } from '@ksadk/adk';
import { ScriptedLlm } from '@ksadk/adk/testing';
import { createToolGateway, defineTool } from '@ksadk/core';
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
//    the `LlmRequest` that returns one — and records every request in `requests` (declarations,
//    system instruction).
const model = new ScriptedLlm([
  { toolCalls: [{ name: 'save_note', args: { title: 'Oslo', body: 'Pack an umbrella.' } }] },
  (request) =>
    JSON.stringify(request.contents.at(-1)).includes('"saved":"Oslo"')
      ? 'Noted: pack an umbrella.'
      : 'The note was not saved.',
]);

// 3. Load once, when the agent is created: its own tools stay first; then the built-ins (here the
//    workspace tools, confined to one root); MCP from KSADK_MCP_SERVERS unless you pass `mcp`.
const root = await mkdtemp(path.join(tmpdir(), 'ksadk-quickstart-'));
const agent = new LlmAgent({ name: 'assistant', model, instruction: 'You keep notes.' });
const { assembly, close } = await loadAdkAgent(agent, {
  tools: [saveNote],
  builtins: { include: 'workspace' },
  catalog: { workspace: { root } },
  gateway: createToolGateway({ approvalMode: 'risk' }),
});
console.log('sources:', assembly.sources.save_note, assembly.sources.read_workspace_file); // own builtin

// 4. Run. A gated call asks for ADK tool confirmation; answer it with a function response.
const runner = new InMemoryRunner({ agent, appName: 'notes' });
const session = await runner.sessionService.createSession({ appName: 'notes', userId: 'u1' });
const run = async (
  parts: NonNullable<Parameters<typeof runner.runAsync>[0]['newMessage']>['parts'],
) => {
  const events = [];
  for await (const event of runner.runAsync({
    userId: 'u1',
    sessionId: session.id,
    newMessage: { role: 'user', parts },
  }))
    events.push(event);
  return events;
};
const first = await run([{ text: 'Note: umbrella' }]);
const confirmation = first
  .flatMap((event) => event.content?.parts ?? [])
  .find(
    (part) => part.functionCall?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  )?.functionCall;
console.log('approve?', confirmation ? 'save_note' : 'nothing asked'); // the host asks the human here
const second = await run([
  {
    functionResponse: {
      id: confirmation?.id,
      name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
      response: { confirmed: true }, // or { confirmed: false, payload: { reason } }
    },
  },
]);
console.log('answer:', second.at(-1)?.content?.parts?.[0]?.text);
await close(); // when the agent is retired (not after each run): ends MCP sessions
await rm(root, { recursive: true, force: true }); // this demo's scratch workspace
