import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type InvocationContextInput,
  runWithInvocationContext,
} from '../../context/invocation-context.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import type { ToolResult } from '../../gateway/results.js';
import { createWorkspaceToolset, type WorkspaceOptions } from '../index.js';

/** A workspace in a fresh temporary directory, for tests: call tools by name through a gateway. */
export async function createTestWorkspace(options: Omit<WorkspaceOptions, 'root'> = {}) {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'ksadk-ws-')));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  const toolset = createWorkspaceToolset({ ...options, root });
  const env = { AGENTENGINE_UI_DIR: path.join(base, 'ui') };
  const gateway = createToolGateway({ approvalMode: 'full', env });
  const byName = new Map(toolset.tools.map((tool) => [tool.name, tool]));
  const call = (
    name: string,
    args: Record<string, unknown>,
    context: InvocationContextInput = {},
  ): Promise<ToolResult> => {
    const tool = byName.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return runWithInvocationContext(context, () => gateway.invoke(tool, args));
  };
  return {
    base,
    root,
    outside,
    toolset,
    gateway,
    env,
    call,
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
