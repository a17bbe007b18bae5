// The agent both processes build: the workspace tools of one folder, through a gateway on the
// shared approval store and a shared folder of execution records.
import {
  type ApprovalStore,
  createFileExecutionStore,
  createToolGateway,
  type ToolGateway,
} from '@ksadk/core';
import { loadOpenAIAgentsTools } from '@ksadk/openai-agents';
import { createScriptedModel } from '@ksadk/openai-agents/testing';
import { Agent, type ModelRequest, setTracingDisabled } from '@openai/agents';

/** Every process signs and checks grants with the same secret (`KSADK_APPROVAL_SECRET`). */
const SECRET = 'the-secret-every-process-of-this-example-shares';

/** The signed-in user and session the run belongs to, in every process. */
export const USER = { accountId: 'acct-example', userId: 'alice', sessionId: 'notes-1' };

export const PROMPT = 'Write notes/hello.txt saying "Hello from a resumed run."';

/** Where the processes of one run keep their shared state. */
export interface RunFolders {
  readonly workspace: string;
  readonly executions: string;
}

/** What the offline model answers: the write first; then, seeing its result, the final answer. */
function scriptedModel() {
  const wrote = (request: ModelRequest) => JSON.stringify(request.input).includes('\\"ok\\":true');
  return createScriptedModel([
    (request) =>
      wrote(request)
        ? 'Wrote notes/hello.txt.'
        : {
            toolCalls: [
              {
                name: 'write_workspace_file',
                args: { path: 'notes/hello.txt', content: 'Hello from a resumed run.\n' },
              },
            ],
          },
    (request) => (wrote(request) ? 'Wrote notes/hello.txt.' : 'Nothing was written.'),
  ]);
}

/** The notes agent of one process, and its gateway. With OPENAI_API_KEY set, a real model. */
export async function notesAgent(
  folders: RunFolders,
  approvalStore: ApprovalStore,
): Promise<{ agent: Agent; gateway: ToolGateway; live: boolean; close(): Promise<void> }> {
  const live = Boolean(process.env['OPENAI_API_KEY']);
  // Offline, there is nowhere to send the SDK's traces.
  if (!live) setTracingDisabled(true);
  const load = await loadOpenAIAgentsTools({
    builtins: { include: 'workspace' },
    catalog: { workspace: { root: folders.workspace } },
    gateway: createToolGateway({
      approvalMode: 'risk',
      approvalStore,
      approvalSecret: SECRET,
      executions: {
        store: createFileExecutionStore({ dir: folders.executions }),
        results: 'inline',
      },
    }),
  });
  const agent = new Agent({
    name: 'notes',
    instructions: `You keep the user's notes in the workspace.\n${load.instructions}`,
    model: live ? 'gpt-4.1-mini' : scriptedModel(),
    tools: load.agentTools,
  });
  return { agent, gateway: load.gateway, live, close: () => load.close() };
}
