// A Claude agent with the workspace tools. Its edit waits for the host: the paused loop is saved
// as JSON (a file here; a database row in a real service), and a second loop — its own client and
// gateway, on the same approval store — resumes it from that JSON with the host's decision.
// Across real processes the store is Redis or PostgreSQL (KSADK_APPROVAL_STORE); the workspace
// tools' "read before edit" record is per process, so an edit resumed elsewhere reads again.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import {
  createToolLoop,
  loadAnthropicTools,
  resumeToolLoop,
  type ToolLoopResult,
} from '@ksadk/anthropic';
import { createScriptedAnthropicFetch } from '@ksadk/anthropic/testing';
import {
  createInMemoryApprovalStore,
  createToolGateway,
  runWithInvocationContext,
} from '@ksadk/core';

/** What a run did, for the console and the test. */
export interface ExampleReport {
  live: boolean;
  transcript: string[];
  /** notes/trip.md at the end. */
  notes: string;
  /** How many times the host was asked. */
  approvalsAsked: number;
}

const MODEL = process.env['ANTHROPIC_MODEL'] ?? 'claude-sonnet-4-5';
const SECRET = 'example-secret-shared-by-both-instances';
const who = { accountId: 'acct-example', userId: 'traveller', sessionId: 'trip-chat' };

/** Claude, played offline: read the note, edit it (the gated call), then answer. */
const script = createScriptedAnthropicFetch.bind(null, [
  { toolCalls: [{ name: 'read_workspace_file', args: { path: 'notes/trip.md' } }] },
  {
    text: 'I will add the umbrella.',
    toolCalls: [
      {
        name: 'edit_workspace_file',
        args: {
          path: 'notes/trip.md',
          old_text: '- pack: passport',
          new_text: '- pack: passport, umbrella',
        },
      },
    ],
  },
  (body) =>
    JSON.stringify(body['messages']).includes('approval_rejected')
      ? 'You declined, so the note is unchanged.'
      : 'Added the umbrella to your packing list.',
]);

/** A client: Claude, or the script (one script for both loops: it is one conversation). */
function clientFor(live: boolean, scripted: ReturnType<typeof script>): Anthropic {
  return live
    ? new Anthropic()
    : new Anthropic({
        apiKey: 'offline',
        baseURL: 'http://scripted.invalid',
        fetch: scripted.fetch,
        maxRetries: 0,
      });
}

/** Runs the example: one loop pauses and saves; the other resumes it from the JSON with the host's decision. */
export async function runAnthropicExample(
  input: { live?: boolean; approve?: boolean } = {},
): Promise<ExampleReport> {
  const live = input.live ?? Boolean(process.env['ANTHROPIC_API_KEY']);
  const root = await mkdtemp(path.join(tmpdir(), 'ksadk-anthropic-'));
  await mkdir(path.join(root, 'notes'));
  await writeFile(path.join(root, 'notes/trip.md'), '# Trip\n- pack: passport\n');
  const stateFile = path.join(root, '.paused-loop.json');
  const store = createInMemoryApprovalStore(); // Redis or PostgreSQL across real processes
  const transcript: string[] = [];
  let approvalsAsked = 0;
  const load = await loadAnthropicTools({
    builtins: { include: 'workspace' },
    catalog: { workspace: { root } },
    environment: false,
  });
  const scripted = script();
  // Two loops, each with its own client and gateway; one approval store and secret between them.
  const loopOptions = () => ({
    model: MODEL,
    tools: load.tools,
    gateway: createToolGateway({ approvalStore: store, approvalSecret: SECRET }),
    system: load.instructions,
  });
  const a = { client: clientFor(live, scripted), options: loopOptions() };
  const b = { client: clientFor(live, scripted), options: loopOptions() };
  try {
    let result: ToolLoopResult = await runWithInvocationContext(who, () =>
      createToolLoop(a.client, a.options).run(
        'Add "umbrella" to the packing list in notes/trip.md.',
      ),
    );
    while (result.status === 'needs_approval') {
      const paused = result;
      await writeFile(stateFile, JSON.stringify(paused));
      const decisions: Record<string, unknown> = {};
      for (const pending of paused.pending) {
        approvalsAsked += 1;
        transcript.push(
          `${pending.toolName} needs approval (tool_use_id ${pending.callId}); saved`,
        );
        decisions[pending.callId] =
          input.approve === false ? { type: 'reject', reason: 'Not now.' } : 'approve';
        transcript.push(
          `host: ${input.approve === false ? 'rejects' : 'approves'}; the other loop resumes it from the JSON`,
        );
      }
      const saved = await readFile(stateFile, 'utf8');
      result = await runWithInvocationContext(who, () =>
        resumeToolLoop(b.client, b.options, saved, decisions),
      );
    }
    for (const message of result.messages)
      if (Array.isArray(message.content))
        for (const block of message.content)
          if (block.type === 'tool_result')
            transcript.push(`tool ${block.tool_use_id}: ${String(block.content).slice(0, 100)}`);
    transcript.push(`claude: ${result.status === 'completed' ? result.output : result.status}`);
    return {
      live,
      transcript,
      notes: await readFile(path.join(root, 'notes/trip.md'), 'utf8'),
      approvalsAsked,
    };
  } finally {
    await load.close();
    await rm(root, { recursive: true, force: true });
  }
}
