// Quick start: KsADK tools with OpenAI function calling, offline. Drop `fetch` and `baseURL` (and
// set OPENAI_API_KEY) to use the real API; nothing else changes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolGateway, defineTool } from '@ksadk/core';
import { createToolLoop, loadOpenAITools } from '@ksadk/openai';
import { createScriptedOpenAIFetch } from '@ksadk/openai/testing';
import OpenAI from 'openai';
import { z } from 'zod';

// 1. Your own tool. Medium risk: the gateway asks the host before it runs.
const saveNote = defineTool({
  name: 'save_note',
  description: 'Save a note for the user. Needs their approval.',
  input: z.object({ title: z.string(), body: z.string() }),
  policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
  execute: ({ title }) => ({ ok: true, saved: title }),
});

// 2. The model. The scripted fetch plays turns — a reply ({ toolCalls } or text), or a function
//    of the request body that returns one — and records every request body in `requests`.
const scripted = createScriptedOpenAIFetch([
  { toolCalls: [{ name: 'save_note', args: { title: 'Oslo', body: 'Pack an umbrella.' } }] },
  (body) =>
    (body['messages'] as { role: string; content?: unknown }[]).some(
      (message) => message.role === 'tool' && String(message.content).includes('"saved":"Oslo"'),
    )
      ? 'Noted: pack an umbrella.'
      : 'The note was not saved.',
]);
const client = new OpenAI({
  apiKey: 'offline',
  baseURL: 'http://scripted.invalid/v1',
  fetch: scripted.fetch,
});

// 3. Load: your tools first, then the built-ins (here the workspace tools, confined to one root);
//    MCP from KSADK_MCP_SERVERS unless you pass `mcp`.
const root = await mkdtemp(path.join(tmpdir(), 'ksadk-quickstart-'));
const { tools, gateway, instructions, assembly, close } = await loadOpenAITools({
  tools: [saveNote],
  builtins: { include: 'workspace' },
  catalog: { workspace: { root } },
  gateway: createToolGateway({ approvalMode: 'risk' }),
});
console.log('sources:', assembly.sources.save_note, assembly.sources.read_workspace_file); // own builtin

// 4. Run. A gated call stops the loop with `needs_approval`; each pending call has `callId`,
//    `toolName` and the full `approvalRequest`. Resume with decisions keyed by call id.
const loop = createToolLoop(client, { model: 'gpt-4.1-mini', tools, gateway, instructions });
let result = await loop.run('Note: umbrella');
while (result.status === 'needs_approval') {
  const decisions: Record<string, unknown> = {};
  for (const pending of result.pending) {
    console.log('approve?', pending.toolName); // the host asks the human here
    decisions[pending.callId] = { type: 'approve' }; // or { type: 'reject', reason }
  }
  result = await result.resume(decisions);
}
console.log('answer:', result.status === 'completed' ? result.output : result.status);
console.log('requests sent:', scripted.requests.length);
await close(); // when you are done: ends MCP sessions
await rm(root, { recursive: true, force: true }); // this demo's scratch workspace
