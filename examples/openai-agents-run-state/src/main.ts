// An OpenAI Agents SDK run that pauses on a gated workspace write, is saved with
// `state.toString()`, and is approved and resumed in another process: the write runs there, once.
// A third process resumes the same saved string again (a retried job): nothing runs again.
//
//   pnpm --filter @ksadk-examples/openai-agents-run-state start   (offline; OPENAI_API_KEY: a real model)
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ApprovalStore,
  createInMemoryApprovalStore,
  runWithInvocationContext,
} from '@ksadk/core';
import { approvalStoreOverIpc, serveApprovalStoreOverIpc } from '@ksadk/core/testing';
import { approvalRequestOf } from '@ksadk/openai-agents';
import { RunState, run } from '@openai/agents';
import { notesAgent, PROMPT, type RunFolders, USER } from './notes-agent.js';

// The processes share one approval store without a server: this process keeps an in-memory store
// and serves it to the resuming processes over their IPC channel. A deployment shares a Redis or
// PostgreSQL store instead (KSADK_APPROVAL_STORE=redis://… with @ksadk/redis).

/** A resuming process: loads the saved run, shows the request, approves it, and runs on. */
async function resume(stateFile: string, folders: RunFolders): Promise<void> {
  const tag = `[process ${process.pid}]`;
  const { agent, close } = await notesAgent(folders, approvalStoreOverIpc());
  const state = await RunState.fromString(agent, await readFile(stateFile, 'utf8'));
  const answer = await runWithInvocationContext(USER, async () => {
    for (const item of state.getInterruptions()) {
      const pause = await approvalRequestOf(item);
      const open = pause ? 'its request is open' : 'its request is no longer open';
      console.log(`${tag} the human approves ${item.name} (${open})`);
      state.approve(item);
    }
    const result = await run(agent, state);
    for (const item of result.newItems)
      if (item.type === 'tool_call_output_item')
        console.log(`${tag} the model got: ${String(item.output).slice(0, 160)}`);
    return result.finalOutput;
  });
  console.log(`${tag} answer: ${answer}`);
  await close();
}

/** Runs `main.ts resume …` in a new process, serving it this process's approval store. */
function resumeInChild(stateFile: string, folders: RunFolders, store: ApprovalStore) {
  const main = fileURLToPath(import.meta.url);
  const args = [main, 'resume', stateFile, folders.workspace, folders.executions];
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, ...args], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      timeout: 120_000,
    });
    serveApprovalStoreOverIpc(child, store);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

/** This process: runs until the pause, saves it, and has two other processes resume it. */
async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-run-state-'));
  const folders = { workspace: path.join(dir, 'workspace'), executions: path.join(dir, 'runs') };
  const stateFile = path.join(dir, 'paused-run.txt');
  const tag = `[process ${process.pid}]`;
  try {
    const approvals = createInMemoryApprovalStore();
    const { agent, gateway, live, close } = await notesAgent(folders, approvals);
    console.log(
      live ? 'live model' : 'offline (scripted model; set OPENAI_API_KEY for a real one)',
    );
    const paused = await runWithInvocationContext(USER, async () => {
      const result = await run(agent, PROMPT);
      for (const item of result.interruptions) {
        const request = (await approvalRequestOf(item))?.approval_request;
        const args = JSON.stringify(request?.arguments);
        console.log(`${tag} paused: ${request?.tool_name} ${args}, ${request?.risk_level} risk`);
      }
      return result;
    });
    const saved = paused.state.toString();
    await writeFile(stateFile, saved);
    console.log(`${tag} saved the paused run (${saved.length} characters); nothing ran`);
    await close();

    await resumeInChild(stateFile, folders, approvals);
    console.log('-- the same saved run, resumed again in another process --');
    await resumeInChild(stateFile, folders, approvals);

    const records = await runWithInvocationContext(USER, () => gateway.executions());
    const ran = records.items.filter((record) => record.toolName === 'write_workspace_file');
    const note = path.join(folders.workspace, 'notes/hello.txt');
    const text = await readFile(note, 'utf8').catch(() => '');
    console.log(`notes/hello.txt: ${JSON.stringify(text)}`);
    console.log(`write_workspace_file ran ${ran.length} time(s): ${ran.map((r) => r.outcome)}`);
    if (!live && (ran.length !== 1 || ran[0]?.outcome !== 'succeeded' || !text)) {
      console.error('example check FAILED: the approved write should have run exactly once');
      process.exitCode = 1;
    } else if (!live) {
      console.log(
        'example check passed: the run paused and was saved, approved in another process, ran once, and its replay ran nothing.',
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, stateFile = '', workspace = '', executions = ''] = process.argv.slice(2);
if (mode === 'resume') {
  await resume(stateFile, { workspace, executions });
  process.exit(0);
}
await main();
