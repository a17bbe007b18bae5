// A RunState saved with toString() in this process and resumed in freshly started `node`
// processes: the approved call runs once, and resuming the same saved string again runs nothing
// more. The processes share the approval store (this process serves it over the IPC channel) and a
// folder of execution records — what a Redis or PostgreSQL store gives a real deployment.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createFileExecutionStore,
  createInMemoryApprovalStore,
  createToolGateway,
  runWithInvocationContext,
} from '@ksadk/core';
import { serveApprovalStoreOverIpc } from '@ksadk/core/testing';
import { Agent, run } from '@openai/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alice, loggedWrite, SECRET, write } from './test-fixtures/test-support.js';
import { createScriptedModel } from './testing/scripted-model.js';
import { toOpenAIAgentsTools } from './to-openai-agents-tools.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('./test-fixtures/resume-run-state.mjs', import.meta.url));
// The child resolves the framework as this process does (the newest peers, when CI tests them).
const peers = fileURLToPath(new URL('../../../scripts/test-peers.mjs', import.meta.url));

interface Report {
  pid: number;
  sent: Record<string, string>;
  interruptions: number;
}

describe('a RunState resumed in another process', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ksadk-agents-processes-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('runs the approved call once, never twice under replay, and never for moved arguments', {
    timeout: 120_000,
  }, async () => {
    const approvals = createInMemoryApprovalStore();
    const files = {
      state: path.join(dir, 'state.txt'),
      moved: path.join(dir, 'moved.txt'),
      log: path.join(dir, 'sent.log'),
      executions: path.join(dir, 'executions'),
    };
    const ran = async () =>
      (await readFile(files.log, 'utf8').catch(() => '')).split('\n').filter(Boolean);

    /** One freshly started process resuming `stateFile`, on this process's approval store. */
    const resumeIn = (stateFile: string): Promise<Report> =>
      new Promise((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            '--conditions=@ksadk/source',
            '--import',
            'tsx',
            '--import',
            peers,
            fixture,
            stateFile,
            files.log,
            files.executions,
            'approve',
          ],
          {
            cwd: packageDir,
            stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
            serialization: 'advanced',
            timeout: 60_000,
          },
        );
        serveApprovalStoreOverIpc(child, approvals);
        let stdout = '';
        let stderr = '';
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
        });
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk.slice(0, 4000);
        });
        child.on('error', reject);
        child.on('close', (code, signal) => {
          try {
            resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Report);
          } catch {
            reject(
              new Error(
                `the process ended (${code ?? signal}) without a report: ${stdout}\n${stderr}`,
              ),
            );
          }
        });
      });

    // This process: the model asks to write, the run pauses, and its state is saved.
    const gateway = createToolGateway({
      env: {},
      approvalStore: approvals,
      approvalSecret: SECRET,
      executions: { store: createFileExecutionStore({ dir: files.executions }), results: 'inline' },
    });
    const agent = new Agent({
      name: 'notes',
      model: createScriptedModel([write('a')]),
      tools: toOpenAIAgentsTools([loggedWrite(files.log)], { gateway }),
    });
    const paused = await runWithInvocationContext(alice, () => run(agent, 'save a'));
    expect(paused.interruptions).toHaveLength(1);
    const saved = paused.state.toString();
    await writeFile(files.state, saved);
    await writeFile(
      files.moved,
      saved.replaceAll('\\"text\\":\\"body\\"', '\\"text\\":\\"evil\\"'),
    );

    // Another process approves and resumes it: the call runs there, once.
    const first = await resumeIn(files.state);
    expect(first.pid).not.toBe(process.pid);
    expect(first.sent['call_a']).toContain('\\"saved\\":\\"a\\"');
    expect((await ran()).map((line) => JSON.parse(line) as { pid: number; title: string })).toEqual(
      [{ pid: first.pid, title: 'a', text: 'body' }],
    );
    // A third process resumes the same saved string and approves again: nothing runs again.
    const again = await resumeIn(files.state);
    expect(again.sent['call_a']).toMatch(/replayed|approval_already_used/);
    // And one resumes a copy whose approved call was moved to other arguments: nothing runs.
    const moved = await resumeIn(files.moved);
    expect(moved.sent['call_a']).toContain('approval_required');
    expect(await ran()).toHaveLength(1);
  });
});
