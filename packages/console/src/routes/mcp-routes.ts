import type { Tool } from '@ksadk/core';
import type { McpToolset } from '@ksadk/core/mcp';
import { describeToolSchemas } from '@ksadk/core/schema';
import { json } from '../http-kit.js';
import type { Route } from './route-kit.js';

/** How long listing a server's tools may take before it is reported failed. */
const LIST_TIMEOUT_MS = 10_000;

/** A server's state as the page shows it. */
type ServerState = 'connected' | 'restarting' | 'failed';

/** The tools of a server, or why they could not be listed (within the timeout). */
async function listed(toolset: McpToolset): Promise<{ tools: Tool[] } | { problem: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ problem: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ problem: `listing its tools took over ${LIST_TIMEOUT_MS / 1000} s` }),
      LIST_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([toolset.tools().then((tools) => ({ tools })), timeout]);
  } catch (error) {
    return { problem: (error instanceof Error ? error.message : String(error)).slice(0, 500) };
  } finally {
    clearTimeout(timer);
  }
}

/** One server: its state, diagnostics (with the stderr tail), tools with each framework's schema, problems. */
async function serverView(
  toolset: McpToolset,
  operator: boolean,
): Promise<Record<string, unknown>> {
  const result = await listed(toolset);
  const diagnostics = toolset.diagnostics();
  const restarting =
    diagnostics.restartNotBefore !== undefined &&
    diagnostics.restartNotBefore.getTime() > Date.now();
  const state: ServerState = 'tools' in result ? 'connected' : restarting ? 'restarting' : 'failed';
  return {
    name: toolset.name,
    group: toolset.group,
    state,
    ...('problem' in result ? { error: result.problem } : {}),
    diagnostics: {
      transport: diagnostics.transport ?? null,
      pid: diagnostics.pid ?? null,
      starts: diagnostics.starts,
      crashes: diagnostics.crashes,
      lastExit: diagnostics.lastExit ?? null,
      restartNotBefore: diagnostics.restartNotBefore?.toISOString() ?? null,
      // A server's stderr is the host's: shown to its operator, not to every account.
      ...(operator
        ? { stderrTail: diagnostics.stderrTail, stderrBytes: diagnostics.stderrBytes }
        : {}),
    },
    tools:
      'tools' in result
        ? result.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            riskLevel: tool.policy.riskLevel,
            schemas: describeToolSchemas(tool),
          }))
        : [],
    problems: toolset.problems,
  };
}

/** MCP servers: each one's state, tools, the schema each framework gets, problems and stderr tail. */
export const mcpRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: /^mcp$/,
    async handle({ principal, services }) {
      const operator = services.operator(principal);
      const servers = await Promise.all(
        services.mcpServers.map((toolset) => serverView(toolset, operator)),
      );
      return json({ servers });
    },
  },
];
