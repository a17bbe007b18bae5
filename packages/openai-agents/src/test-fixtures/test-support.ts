// For this package's tests: the note tools, who runs them, stores shared by "instances" (and by
// processes, over the IPC channel of @ksadk/core/testing), and what a run gave the model.
import { appendFileSync } from 'node:fs';
import {
  createInMemoryApprovalStore,
  createInMemoryExecutionStore,
  createToolGateway,
  defineTool,
  type Tool,
  type ToolGateway,
} from '@ksadk/core';
import { Agent, type RunItem, setTracingDisabled } from '@openai/agents';
import { z } from 'zod';
import { createScriptedModel, type ScriptedModel } from '../testing/scripted-model.js';
import { toOpenAIAgentsTools } from '../to-openai-agents-tools.js';

// Offline: no trace export to OpenAI from the tests.
setTracingDisabled(true);

export const SECRET = 'one-secret-for-every-instance';
export const alice = { accountId: 'acct-agents', userId: 'alice', sessionId: 's1' };
export const mallory = { accountId: 'acct-evil', userId: 'mallory', sessionId: 's1' };

/** A gated write that counts its runs, and a read. */
export function noteTools(runs: unknown[]): Tool[] {
  return [
    defineTool({
      name: 'write_note',
      description: 'Writes a note.',
      input: z.object({ title: z.string(), text: z.string() }),
      policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
      execute: (input) => {
        runs.push(input);
        return { ok: true, saved: input.title, run: runs.length };
      },
    }),
    defineTool({
      name: 'read_note',
      description: 'Reads a note.',
      input: z.object({ title: z.string() }),
      execute: ({ title }) => ({ ok: true, title, text: `text of ${title}` }),
    }),
  ];
}

export type SharedStores = ReturnType<typeof sharedStores>;

/** The stores several gateway instances (or processes) share. */
export const sharedStores = () => ({
  approvals: createInMemoryApprovalStore(),
  executions: createInMemoryExecutionStore(),
});

/** One "instance": its own gateway on the shared stores. */
export const server = (stores: SharedStores): ToolGateway =>
  createToolGateway({
    env: {},
    approvalStore: stores.approvals,
    approvalSecret: SECRET,
    executions: { store: stores.executions },
  });

/** A model call asking to write note `title`. */
export const write = (title: string, text = 'body', id = `call_${title}`) => ({
  toolCalls: [{ id, name: 'write_note', args: { title, text } }],
});

/** An agent on its own gateway and fresh tools, as a freshly started process would build it. */
export function notesAgent(
  gateway: ToolGateway,
  runs: unknown[],
  turns: Parameters<typeof createScriptedModel>[0],
): { agent: Agent; model: ScriptedModel } {
  const model = createScriptedModel(turns);
  const tools = toOpenAIAgentsTools(noteTools(runs), { gateway });
  return { agent: new Agent({ name: 'notes', instructions: 'Keep notes.', model, tools }), model };
}

/** The tool outputs the model was given in its last request, by call id, as JSON text. */
export function sentToModel(model: ScriptedModel): Record<string, string> {
  const input = model.requests.at(-1)?.input;
  const results: Record<string, string> = {};
  for (const item of Array.isArray(input) ? input : [])
    if (item.type === 'function_call_result') results[item.callId] = JSON.stringify(item.output);
  return results;
}

/** The tool outputs among a run's new items, by call id, as JSON text. */
export function outputsOf(items: readonly RunItem[]): Record<string, string> {
  const results: Record<string, string> = {};
  for (const item of items)
    if (item.type === 'tool_call_output_item' && item.rawItem.type === 'function_call_result')
      results[item.rawItem.callId] = JSON.stringify(item.rawItem.output);
  return results;
}

/** The gated write of the cross-process tests: each run appends a line to `logFile`. */
export const loggedWrite = (logFile: string): Tool =>
  defineTool({
    name: 'write_note',
    description: 'Writes a note.',
    input: z.object({ title: z.string(), text: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute: (input) => {
      appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...input })}\n`);
      return { ok: true, saved: input.title, pid: process.pid };
    },
  });
