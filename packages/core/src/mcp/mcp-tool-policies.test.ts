import { afterEach, describe, expect, it } from 'vitest';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { isApprovalRequired } from '../gateway/results.js';
import { type McpTestTool, startMcpTestServer } from '../testing/mcp-test-server.js';
import { parseMcpServerConfigs } from './mcp-config.js';
import { createMcpToolset } from './mcp-toolset.js';

const env = {} as NodeJS.ProcessEnv;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const fsTools: McpTestTool[] = [
  {
    name: 'read_file',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
    handler: () => text('contents'),
  },
  // A server that claims both: destructive wins, the claim of read-only is not trusted.
  {
    name: 'shred',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true, destructiveHint: true },
    handler: () => text('gone'),
  },
  { name: 'write_file', inputSchema: { type: 'object' }, handler: () => text('written') },
  {
    name: 'list_dir',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: false, title: 'List' },
    handler: () => text('a b'),
  },
  { name: 'move_file', inputSchema: { type: 'object' }, handler: () => text('moved') },
];

/** Which of the server's tools ask for approval under `entry` (in the default `risk` mode). */
async function asking(entry: Record<string, unknown>): Promise<string[]> {
  const server = await startMcpTestServer({ tools: fsTools });
  cleanups.push(() => server.close());
  const { configs, problems } = parseMcpServerConfigs({
    mcpServers: { fs: { url: server.url, ...entry } },
  });
  expect(problems).toEqual([]);
  const toolset = createMcpToolset(configs[0]!);
  cleanups.push(() => toolset.close());
  const gateway = createToolGateway({ env });
  const out: string[] = [];
  for (const tool of await toolset.tools())
    if (isApprovalRequired(await gateway.invoke(tool, {}))) out.push(tool.name);
  return out.sort();
}

describe('MCP tool policies', () => {
  it('by default every tool of a server asks, reads included, whatever its annotations say', async () => {
    expect(await asking({})).toEqual(['list_dir', 'move_file', 'read_file', 'shred', 'write_file']);
  });

  it('trustAnnotations lowers only tools marked readOnlyHint: true and not destructive', async () => {
    expect(await asking({ trustAnnotations: true })).toEqual([
      'list_dir',
      'move_file',
      'shred',
      'write_file',
    ]);
  });

  it("autoApprove (the Cline / Roo Code field) is the user's explicit choice; toolPolicies win over everything", async () => {
    expect(
      await asking({
        autoApprove: ['write_file', 'read_file'],
        trust_annotations: true,
        tool_policies: { read_file: { requiresApproval: true }, move_file: { riskLevel: 'low' } },
      }),
    ).toEqual(['list_dir', 'read_file', 'shred']);
  });

  it('refuses malformed policies with the field named', () => {
    for (const [field, value] of [
      ['toolPolicies', { read_file: { riskLevel: 'none' } }],
      ['toolPolicies', { read_file: { approvalExempt: true } }],
      ['toolPolicies', ['read_file']],
      ['autoApprove', 'read_file'],
      ['autoApprove', [1]],
      ['trustAnnotations', 'yes'],
    ] as const) {
      const { configs, problems } = parseMcpServerConfigs([
        { name: 'fs', url: 'http://127.0.0.1:1/mcp', [field]: value },
      ]);
      expect(configs).toEqual([]);
      expect(problems[0]).toMatchObject({ field });
    }
  });
});
