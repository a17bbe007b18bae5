// One process of the two-process private-state test: `save <project>` saves a large result as
// alice (the result store keeps it under the project); `look <project>` is a fresh process where
// bob, whose workspace is the project folder, lists, reads, searches and greps for it.

import { z } from 'zod';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { createSandboxToolset } from '../../sandbox/tools/index.js';
import { defineTool } from '../../tool/define-tool.js';
import { createWorkspaceToolset } from '../index.js';

const [mode, project] = process.argv.slice(2) as [string, string];
const env = { KSADK_PROJECT_DIR: project, PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
const byName = (tools: readonly { name: string }[], name: string) =>
  tools.find((tool) => tool.name === name) as Parameters<
    ReturnType<typeof createToolGateway>['invoke']
  >[0];

if (mode === 'save') {
  const gateway = createToolGateway({ env });
  const big = defineTool({
    name: 'big_report',
    description: 'A large report.',
    input: z.object({}),
    execute: async () => ({ ok: true, text: `ALICE_PRIVATE_RESULT ${'x'.repeat(120_000)}` }),
  });
  const result = await runWithInvocationContext({ accountId: 'alice', sessionId: 's1' }, () =>
    gateway.invoke(big, {}, { callId: 'call_alice_1' }),
  );
  process.stdout.write(
    JSON.stringify({ persisted: JSON.stringify(result).includes('tool-results://') }),
  );
} else {
  // Bob's process: the workspace is the project folder; the gateway here keeps its own results
  // elsewhere (it is not configured with the project), so only the workspace protects alice's.
  const gateway = createToolGateway({ env: {} });
  const { tools } = createWorkspaceToolset({ root: project, env });
  const sandbox = createSandboxToolset({ backend: 'bubblewrap', workspace: project, env });
  const bob = { accountId: 'bob', sessionId: 's9' };
  const call = (tool: string, args: Record<string, unknown>) =>
    runWithInvocationContext(bob, () => gateway.invoke(byName(tools, tool), args));
  const listed = await call('list_workspace_files', { recursive: true, include_dirs: true });
  const read = await call('read_workspace_file', {
    path: '.agentengine/ui/tool-results/alice/_/s1/call_alice_1.text.txt',
  });
  const searched = await call('search_workspace_files', { query: 'ALICE_PRIVATE_RESULT' });
  const grep = await runWithInvocationContext({ ...bob, approvalMode: 'full' }, () =>
    gateway.invoke(byName(sandbox.tools, 'run_command'), {
      command: 'grep -rl ALICE_PRIVATE_RESULT . ; ls -R .agentengine 2>&1 | head -20',
    }),
  );
  await sandbox.close();
  process.stdout.write(JSON.stringify({ listed, read, searched, grep }));
}
