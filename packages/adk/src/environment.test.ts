import { LlmAgent } from '@google/adk';
import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdkAgent } from './load-adk-agent.js';
import { ScriptedLlm } from './testing/scripted-llm.js';

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpTestServer({
    tools: [
      { name: 'env_lookup', inputSchema: { type: 'object' }, handler: () => ({ content: [] }) },
    ],
  });
});
afterAll(() => server.close());

describe('loadAdkAgent reads the environment like every adapter', () => {
  it('loads MCP servers from KSADK_MCP_SERVERS and reports an overridden variable', async () => {
    const env = { KSADK_MCP_SERVERS: JSON.stringify([{ name: 'env', url: server.url }]) };
    const agent = new LlmAgent({ name: 'assistant', model: new ScriptedLlm([]) });
    const load = await loadAdkAgent(agent, { env });
    try {
      expect(agent.tools.map((tool) => (tool as { name: string }).name)).toContain('env_lookup');
    } finally {
      await load.close();
    }
    const other = new LlmAgent({ name: 'other', model: new ScriptedLlm([]) });
    const overridden = await loadAdkAgent(other, { env, mcp: false });
    expect(overridden.warnings).toContain(
      'KSADK_MCP_SERVERS is set but the mcp option overrides it',
    );
  });
  it('refuses an unknown option key, naming the intended one', async () => {
    const agent = new LlmAgent({ name: 'strict', model: new ScriptedLlm([]) });
    await expect(loadAdkAgent(agent, { mpc: [] } as never)).rejects.toThrowError(
      /no option "mpc" — did you mean "mcp"/,
    );
  });
});
