import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createInMemoryMemoryBackend } from '../memory/memory-stores.js';
import { type McpTestServer, startMcpTestServer } from '../testing/mcp-test-server.js';
import { defineTool } from '../tool/define-tool.js';
import { assembleAgentTools } from './assemble-agent-tools.js';

let server: McpTestServer;
let base: string;
beforeAll(async () => {
  server = await startMcpTestServer({
    tools: [
      {
        name: 'lookup_city',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        handler: () => ({ content: [{ type: 'text', text: 'ok' }] }),
      },
      {
        name: 'read_workspace_file',
        inputSchema: { type: 'object' },
        handler: () => ({ content: [] }),
      },
    ],
  });
  base = await mkdtemp(path.join(tmpdir(), 'ksadk-asm-'));
});
afterAll(async () => {
  await server.close();
  await rm(base, { recursive: true, force: true });
});
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const own = defineTool({
  name: 'my_tool',
  description: 'Mine.',
  input: z.object({}),
  execute: () => ({ ok: true }),
});
const shadow = defineTool({
  name: 'component_status',
  description: 'My own status.',
  input: z.object({}),
  execute: () => ({ ok: true, mine: true }),
});

describe('assembleAgentTools', () => {
  it('orders own → memory → skills → built-ins → MCP, earlier wins, every clash reported', async () => {
    const skill = defineTool({
      name: 'execute_skills',
      description: 'Skills.',
      input: z.object({}),
      execute: () => ({ ok: true }),
    });
    const assembly = await assembleAgentTools({
      tools: [own, shadow],
      memory: { memory: createInMemoryMemoryBackend() },
      skills: { tools: [skill], instructions: 'Skills available: none yet.' },
      builtins: { profile: 'default' },
      catalog: { workspace: { root: path.join(base, 'ws') }, env: {} },
      mcp: [{ name: 'cities', url: server.url }],
    });
    closers.push(assembly.close);
    const bySource = (source: string) =>
      assembly.tools
        .filter((tool) => assembly.sources[tool.name] === source)
        .map((tool) => tool.name);
    expect(assembly.tools.map((tool) => assembly.sources[tool.name])).toEqual([
      'own',
      'own',
      'memory',
      'memory',
      'skills',
      // workspace, sandbox_status, run_command, run_code, web_fetch, web_search (component_status is taken)
      ...Array(15).fill('builtin'),
      'mcp',
    ]);
    expect(bySource('own')).toEqual(['my_tool', 'component_status']);
    expect(bySource('mcp')).toEqual(['lookup_city']);
    expect(assembly.tools.find((tool) => tool.name === 'component_status')).toBe(shadow);
    expect(assembly.instructions).toBe('Skills available: none yet.');
    expect(assembly.warnings).toEqual(
      expect.arrayContaining([
        'builtin tool component_status is left out: the name is taken by a own tool loaded earlier',
        'mcp tool read_workspace_file is left out: the name is taken by a builtin tool loaded earlier',
      ]),
    );
    expect(new Set(assembly.tools.map((tool) => tool.name)).size).toBe(assembly.tools.length);
  });

  it('reports unreachable MCP servers and bad entries instead of failing, and is off by default for built-ins', async () => {
    const assembly = await assembleAgentTools({
      catalog: { workspace: false, env: {} },
      mcp: [
        { name: 'gone', url: 'http://127.0.0.1:9/mcp' },
        { name: 'bad', url: 'http://x/api' },
      ],
    });
    closers.push(assembly.close);
    expect(assembly.tools).toEqual([]);
    expect(assembly.warnings).toEqual([
      'mcp servers[1].url: MCP server url must point to a /mcp endpoint',
      expect.stringMatching(/^MCP server gone is unreachable/),
    ]);
    await expect(
      assembleAgentTools({ mcp: [{ name: 'bad', url: 'http://x/api' }], strict: true }),
    ).rejects.toThrowError(/\/mcp endpoint/);
  });

  it('selects deferred tools per request without changing the assembly', async () => {
    const assembly = await assembleAgentTools({
      builtins: { mode: 'deferred', profile: 'coding' },
      catalog: { workspace: { root: path.join(base, 'ws2') }, env: {} },
      mcp: [{ name: 'cities', url: server.url }],
    });
    closers.push(assembly.close);
    expect(assembly.tools.map((tool) => tool.name)).toEqual([
      'tool_search',
      'tool_dispatcher',
      'lookup_city',
      'read_workspace_file',
    ]);
    const before = [...assembly.tools];
    const { tools, skipped } = assembly.selectDeferredTools([
      'edit_workspace_file',
      'delete_workspace_file',
      'lookup_city',
      'nope',
    ]);
    expect(tools.map((tool) => tool.name)).toEqual(['edit_workspace_file', 'lookup_city']);
    expect(skipped).toEqual(['delete_workspace_file', 'nope']);
    expect(assembly.tools).toEqual(before);
  });
});
