// Test fixture: a freshly started process of the cross-process RunState tests, run with
// `node --conditions=@ksadk/source --import tsx`. Its approval store is the parent's (over the IPC
// channel), its execution records the shared folder's.
// Usage: resume-run-state.mjs <stateFile> <logFile> <executionsDir> <approve|as-is>
import { readFileSync } from 'node:fs';
import { createFileExecutionStore, createToolGateway, runWithInvocationContext } from '@ksadk/core';
import { approvalStoreOverIpc } from '@ksadk/core/testing';
import { Agent, RunState, run } from '@openai/agents';
import { createScriptedModel } from '../testing/scripted-model.ts';
import { toOpenAIAgentsTools } from '../to-openai-agents-tools.ts';
import { alice, loggedWrite, SECRET, sentToModel } from './test-support.ts';

const [stateFile = '', logFile = '', executionsDir = '', mode = ''] = process.argv.slice(2);
const gateway = createToolGateway({
  env: {},
  approvalStore: approvalStoreOverIpc(),
  approvalSecret: SECRET,
  executions: { store: createFileExecutionStore({ dir: executionsDir }), results: 'inline' },
});
const model = createScriptedModel(['Saved.']);
const agent = new Agent({
  name: 'notes',
  model,
  tools: toOpenAIAgentsTools([loggedWrite(logFile)], { gateway }),
});
const report = await runWithInvocationContext(alice, async () => {
  const state = await RunState.fromString(agent, readFileSync(stateFile, 'utf8'));
  if (mode === 'approve') for (const item of state.getInterruptions()) state.approve(item);
  const result = await run(agent, state);
  return { pid: process.pid, sent: sentToModel(model), interruptions: result.interruptions.length };
});
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
