import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenAITools } from './create-tool-loop.js';
import { toOpenAITools } from './to-openai-tools.js';

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpTestServer({
    tools: [
      { name: 'env_lookup', inputSchema: { type: 'object' }, handler: () => ({ content: [] }) },
    ],
  });
});
afterAll(() => server.close());

describe('loadOpenAITools reads the environment like every adapter', () => {
  it('loads MCP servers from KSADK_MCP_SERVERS and reports an overridden variable', async () => {
    const env = { KSADK_MCP_SERVERS: JSON.stringify([{ name: 'env', url: server.url }]) };
    const load = await loadOpenAITools({ env });
    try {
      const names = toOpenAITools(load.tools, { api: 'chat' }).map(
        (definition) => (definition as { function: { name: string } }).function.name,
      );
      expect(names).toContain('env_lookup');
    } finally {
      await load.close();
    }
    const overridden = await loadOpenAITools({ env, mcp: false });
    expect(overridden.warnings).toContain(
      'KSADK_MCP_SERVERS is set but the mcp option overrides it',
    );
  });
  it('refuses an unknown option key, naming the intended one', async () => {
    await expect(loadOpenAITools({ builtin: false } as never)).rejects.toThrowError(
      /no option "builtin" — did you mean "builtins"/,
    );
    expect(() => toOpenAITools([], { api: 'chat', stric: true } as never)).toThrowError(/strict/);
  });
});
