// Quick start: KsADK tools with Claude (Anthropic's Messages API), offline. Drop `fetch` and
// `baseURL` (and set ANTHROPIC_API_KEY) to use the real API; nothing else changes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { createToolLoop, loadAnthropicTools } from '@ksadk/anthropic';
import { createScriptedAnthropicFetch } from '@ksadk/anthropic/testing';
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

// 2. The model. The scripted fetch plays Claude's turns — a reply ({ toolCalls } or text), or a
//    function of the request body that returns one — and records every request body in `requests`.
const scripted = createScriptedAnthropicFetch([
  { toolCalls: [{ name: 'save_note', args: { title: 'Oslo', body: 'Pack an umbrella.' } }] },
  (body) =>
    (body['messages'] as { content: string | { type: string; content?: unknown }[] }[]).some(
      (message) =>
        Array.isArray(message.content) &&
        message.content.some(
          (block) =>
            block.type === 'tool_result' && String(block.content).includes('"saved":"Oslo"'),
        ),
    )
      ? 'Noted: pack an umbrella.'
      : 'The note was not saved.',
]);
const client = new Anthropic({
  apiKey: 'offline',
  baseURL: 'http://scripted.invalid',
  fetch: scripted.fetch,
});

// 3. Load: your tools first, then the built-ins (here the workspace tools, confined to one root);
//    MCP from KSADK_MCP_SERVERS unless you pass `mcp`.
const root = await mkdtemp(path.join(tmpdir(), 'ksadk-quickstart-'));
const { tools, gateway, instructions, assembly, close } = await loadAnthropicTools({
  tools: [saveNote],
  builtins: { include: 'workspace' },
  catalog: { workspace: { root } },
  gateway: createToolGateway({ approvalMode: 'risk' }),
});
console.log('sources:', assembly.sources.save_note, assembly.sources.read_workspace_file); // own builtin

// 4. Run. A gated call stops the loop with `needs_approval`; each pending call has `callId` (the
//    `tool_use_id`), `toolName` and the full `approvalRequest`. Resume with decisions by call id.
const loop = createToolLoop(client, {
  model: 'claude-sonnet-4-5',
  tools,
  gateway,
  system: instructions,
  stream: true, // text arrives in `onText` as Claude writes it; pauses work the same
});
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
