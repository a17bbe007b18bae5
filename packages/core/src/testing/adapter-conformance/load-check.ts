import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { ToolSource } from '../../catalog/assemble-agent-tools.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { defineTool } from '../../tool/define-tool.js';
import { startMcpTestServer } from '../mcp-test-server.js';
import type { Check } from '../store-conformance/conformance-run.js';
import type { AdapterDriver } from './adapter-driver.js';

/** An MCP tool name no provider takes: dots, and longer than the 64 characters they allow. */
const LONG_NAME = 'knowledge.search_every_page_of_the_team_handbook_by_title_and_body_text';
/** The order every loader injects tools in. */
const ORDER: readonly ToolSource[] = ['own', 'memory', 'skills', 'builtin', 'mcp', 'a2a'];

const SKILL = `---
name: weekly-report
description: Write the weekly report from numbers.
---
Sum the numbers, then write the report.
`;

/**
 * The adapter's own loader with every source from the environment — memory, local skills,
 * built-ins and an MCP server from `KSADK_MCP_SERVERS` — hands the framework the tools in the
 * documented order, and a call of the MCP tool whose name was over the provider's limit (sanitised
 * for the model) reaches the server under its own name.
 */
export function loadOrderCheck(driver: AdapterDriver): Check {
  return {
    name: `${driver.name}: environment-configured sources load in the documented order; an MCP tool name over the limit is sanitised and mapped back`,
    async run(c) {
      const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-kit-load-'));
      const called: unknown[] = [];
      const server = await startMcpTestServer({
        tools: [
          {
            name: LONG_NAME,
            inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
            handler: (args) => {
              called.push(args);
              return { content: [{ type: 'text', text: 'handbook page 7' }] };
            },
          },
        ],
      });
      try {
        await mkdir(path.join(dir, 'skills', 'weekly-report'), { recursive: true });
        await mkdir(path.join(dir, 'workspace'));
        await writeFile(path.join(dir, 'skills', 'weekly-report', 'SKILL.md'), SKILL);
        const env = {
          KSADK_LTM_BACKEND: 'memory',
          KSADK_SKILLS_MODE: 'local',
          KSADK_LOCAL_SKILLS_DIR: path.join(dir, 'skills'),
          KSADK_BUILTIN_TOOLS_MODE: 'direct',
          KSADK_BUILTIN_TOOLS_PROFILE: 'coding',
          AGENTENGINE_UI_DIR: path.join(dir, 'workspace'),
          KSADK_MCP_SERVERS: JSON.stringify([
            { name: 'kb', url: server.url, autoApprove: [LONG_NAME] },
          ]),
        };
        const gateway = createToolGateway({ env: {}, approvalMode: 'risk' });
        const own = defineTool({
          name: 'own_tool',
          description: "The agent's own tool.",
          input: z.object({}),
          execute: () => ({ ok: true }),
        });
        const load = await driver.load({ tools: [own], env, gateway });
        try {
          const sources = load.tools.map((tool) => load.sources[tool.name]);
          c.expectEqual(
            [...new Set(sources)],
            ['own', 'memory', 'skills', 'builtin', 'mcp'],
            'the sources, in the order the tools came',
          );
          const ranks = sources.map((source) => (source ? ORDER.indexOf(source) : -1));
          c.expect(
            ranks.every((rank, i) => i === 0 || rank >= ranks[i - 1]!),
            `the sources are out of order: ${sources.join(', ')}`,
          );
          c.expectEqual(load.names.length, load.tools.length, 'tools the framework got');
          const at = sources.indexOf('mcp');
          const name = load.names[at] ?? '';
          c.expect(
            /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(name),
            `the MCP tool reached the framework as "${name}", which a provider refuses`,
          );
          const done = await driver.run({
            tools: load.tools,
            gateway,
            calls: [{ id: 'call_kb', name, args: { query: 'leave' } }],
            onProgress: () => undefined,
          });
          c.expectEqual(called, [{ query: 'leave' }], 'what the MCP server was called with');
          c.expect(
            JSON.stringify(done.results['call_kb'] ?? '').includes('handbook page 7'),
            'the MCP result did not reach the model',
          );
        } finally {
          await load.close();
        }
      } finally {
        await server.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
