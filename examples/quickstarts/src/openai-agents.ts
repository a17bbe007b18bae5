// Quick start: KsADK tools in the OpenAI Agents SDK, offline. Replace the scripted model with a
// real one (`model: 'gpt-4.1-mini'`, with OPENAI_API_KEY set); nothing else changes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolGateway, defineTool, runWithInvocationContext } from '@ksadk/core';
import { approvalRequestOf, loadOpenAIAgentsTools, settleRejections } from '@ksadk/openai-agents';
import { createScriptedModel } from '@ksadk/openai-agents/testing';
import { Agent, RunState, run } from '@openai/agents';
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
//    model request that returns one.
const model = createScriptedModel([
  { toolCalls: [{ name: 'save_note', args: { title: 'Oslo', body: 'Pack an umbrella.' } }] },
  (request) =>
    JSON.stringify(request.input).includes('\\"saved\\":\\"Oslo\\"')
      ? 'Noted: pack an umbrella.'
      : 'The note was not saved.',
]);

// 3. Load: your tools first, then the built-ins (here the workspace tools, confined to one root);
//    MCP from KSADK_MCP_SERVERS unless you pass `mcp`. `agentTools` is what the agent takes.
const root = await mkdtemp(path.join(tmpdir(), 'ksadk-quickstart-'));
const { agentTools, instructions, assembly, close } = await loadOpenAIAgentsTools({
  tools: [saveNote],
  builtins: { include: 'workspace' },
  catalog: { workspace: { root } },
  gateway: createToolGateway({ approvalMode: 'risk' }),
});
console.log('sources:', assembly.sources.save_note, assembly.sources.read_workspace_file); // own builtin
const agent = new Agent({
  name: 'notes',
  instructions: `Keep notes.\n${instructions}`,
  model,
  tools: agentTools,
});

// 4. Run, as the signed-in user of this session. A gated call pauses the run as the SDK's own
//    interruption, and approvalRequestOf gives the gateway's full request. The paused run can be
//    saved (`state.toString()`) and resumed in any process that shares the approval store;
//    `state.approve(item)` runs exactly that call, once: the gateway honours it only for the
//    request it made.
const user = { accountId: 'acct-1', userId: 'u-1', sessionId: 'chat-1' };
const answer = await runWithInvocationContext(user, async () => {
  const paused = await run(agent, 'Note: umbrella');
  if (paused.interruptions.length === 0) return paused.finalOutput;
  const saved = paused.state.toString(); // keep it anywhere: a database, a queue, a file
  // Later, here or in another process:
  const state = await RunState.fromString(agent, saved);
  for (const item of state.getInterruptions()) {
    const pause = await approvalRequestOf(item);
    console.log('approve?', pause?.approval_request.tool_name); // the host asks the human here
    if (pause) state.approve(item);
    else state.reject(item, { message: 'Rejected: its arguments could not be read.' });
  }
  await settleRejections(state); // makes the rejections final in the gateway
  return (await run(agent, state)).finalOutput;
});
console.log('answer:', answer);
await close(); // when you are done: ends MCP sessions
await rm(root, { recursive: true, force: true }); // this demo's scratch workspace
