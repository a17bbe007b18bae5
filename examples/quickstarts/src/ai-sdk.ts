// Quick start: KsADK tools in the Vercel AI SDK, offline. Replace the scripted model with a real
// one (`openai('gpt-4.1-mini')` from @ai-sdk/openai, say); nothing else changes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadAiSdkTools } from '@ksadk/ai-sdk';
import { createScriptedLanguageModel } from '@ksadk/ai-sdk/testing';
import { createToolGateway, defineTool, runWithInvocationContext } from '@ksadk/core';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { z } from 'zod';

// 1. Your own tool. Medium risk: the gateway asks the human before it runs.
const saveNote = defineTool({
  name: 'save_note',
  description: 'Save a note for the user. Needs their approval.',
  input: z.object({ title: z.string(), body: z.string() }),
  policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
  execute: ({ title }) => ({ ok: true, saved: title }),
});

// 2. The model: scripted turns — a reply ({ toolCalls } or text), or a function of the SDK's
//    call options that returns one.
const model = createScriptedLanguageModel([
  { toolCalls: [{ name: 'save_note', args: { title: 'Oslo', body: 'Pack an umbrella.' } }] },
  (options) =>
    JSON.stringify(options.prompt).includes('"saved":"Oslo"')
      ? 'Noted: pack an umbrella.'
      : 'The note was not saved.',
]);

// 3. Load: your tools first, then the built-ins (here the workspace tools, confined to one root);
//    MCP from KSADK_MCP_SERVERS unless you pass `mcp`. `toolSet` is what the SDK takes.
const root = await mkdtemp(path.join(tmpdir(), 'ksadk-quickstart-'));
const { toolSet, instructions, assembly, close } = await loadAiSdkTools({
  tools: [saveNote],
  builtins: { include: 'workspace' },
  catalog: { workspace: { root } },
  gateway: createToolGateway({ approvalMode: 'risk' }),
});
console.log('sources:', assembly.sources.save_note, assembly.sources.read_workspace_file); // own builtin

// 4. Run, as the signed-in user of this chat. A gated call ends the step with the SDK's own
//    `tool-approval-request`; the human's `tool-approval-response` goes in the next request
//    (a useChat client sends it for you), and the gateway honours it for exactly that call.
const user = { accountId: 'acct-1', userId: 'u-1', sessionId: 'chat-1' };
const messages: ModelMessage[] = [{ role: 'user', content: 'Note: umbrella' }];
const ask = () =>
  runWithInvocationContext(user, () =>
    generateText({
      model,
      tools: toolSet,
      system: instructions,
      messages,
      stopWhen: stepCountIs(5),
    }),
  );
let result = await ask();
messages.push(...result.response.messages);
for (const part of result.content) {
  if (part.type !== 'tool-approval-request') continue;
  console.log('approve?', part.toolCall.toolName); // the host asks the human here
  messages.push({
    role: 'tool',
    content: [{ type: 'tool-approval-response', approvalId: part.approvalId, approved: true }],
  });
  result = await ask();
}
console.log('answer:', result.text);
await close(); // when you are done: ends MCP sessions
await rm(root, { recursive: true, force: true }); // this demo's scratch workspace
