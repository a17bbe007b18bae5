import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { type McpTestServer, startMcpTestServer } from '../testing/mcp-test-server.js';
import { defineTool } from '../tool/define-tool.js';
import { loadAgentTools } from './load-agent-tools.js';

let server: McpTestServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-load-'));
  server = await startMcpTestServer({
    tools: [
      {
        name: 'env_weather',
        inputSchema: { type: 'object' },
        handler: () => ({ content: [{ type: 'text', text: 'sunny' }] }),
      },
    ],
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const own = defineTool({
  name: 'own_tool',
  description: 'Mine.',
  input: z.object({}),
  execute: () => ({ ok: true }),
});

describe('loadAgentTools', () => {
  it('defaults every source from the environment: MCP, memory, built-ins, in order', async () => {
    const env = {
      KSADK_MCP_SERVERS: JSON.stringify([{ name: 'env', url: server.url }]),
      KSADK_LTM_BACKEND: 'memory',
      KSADK_BUILTIN_TOOLS_MODE: 'direct',
      KSADK_BUILTIN_TOOLS_PROFILE: 'coding',
      AGENTENGINE_UI_DIR: dir,
    };
    const gateway = createToolGateway({ approvalMode: 'full', env });
    const load = await loadAgentTools({ tools: [own], env, gateway });
    try {
      const names = load.tools.map((tool) => tool.name);
      expect(names[0]).toBe('own_tool');
      expect(names).toContain('load_memory');
      expect(names).toContain('read_workspace_file');
      expect(names.at(-1)).toBe('env_weather');
      expect(names.indexOf('load_memory')).toBeLessThan(names.indexOf('read_workspace_file'));
      expect(load.warnings).toEqual([]);
      expect(await load.gateway.invoke(load.tools.at(-1)!, {})).toMatchObject({ ok: true });
    } finally {
      await load.close();
    }
  });

  it('an option wins over its variable and says so; environment: false reads nothing', async () => {
    const env = {
      KSADK_MCP_SERVERS: JSON.stringify([{ name: 'env', url: server.url }]),
      KSADK_LTM_BACKEND: 'memory',
      KSADK_BUILTIN_TOOLS_MODE: 'direct',
    };
    const overridden = await loadAgentTools({ env, mcp: false, memory: false, builtins: false });
    expect(overridden.tools).toEqual([]);
    expect(overridden.warnings).toEqual([
      'KSADK_BUILTIN_TOOLS_MODE is set but the builtins option overrides it',
      'KSADK_LTM_BACKEND is set but the memory option overrides it',
      'KSADK_MCP_SERVERS is set but the mcp option overrides it',
    ]);
    const off = await loadAgentTools({ env, environment: false, tools: [own] });
    expect(off.tools.map((tool) => tool.name)).toEqual(['own_tool']);
    expect(off.warnings).toEqual([]);
  });

  it('from the environment: memory, dispatcher built-ins and MCP, with the source of each tool', async () => {
    const env = {
      KSADK_LTM_BACKEND: 'memory',
      KSADK_BUILTIN_TOOLS_MODE: 'dispatcher',
      KSADK_MCP_SERVERS: JSON.stringify([
        { name: 'env', url: server.url, toolFilter: ['env_weather'] },
      ]),
      KSADK_KB_DATASET_ID: 'kb-1',
      AGENTENGINE_UI_DIR: dir,
    };
    const load = await loadAgentTools({ tools: [own], env });
    try {
      const { assembly } = load;
      expect(load.tools.map((tool) => [tool.name, assembly.sources[tool.name]])).toEqual([
        ['own_tool', 'own'],
        ['load_memory', 'memory'],
        ['save_memory', 'memory'],
        ['tool_dispatcher', 'builtin'],
        ['env_weather', 'mcp'],
      ]);
      expect(load.warnings).toEqual([
        expect.stringContaining('KSADK_KB_DATASET_ID is set but no knowledge base client'),
      ]);
    } finally {
      await load.close();
    }
  });
});
