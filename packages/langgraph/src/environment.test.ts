import { createToolGateway } from '@ksadk/core';
import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKsadkAgent } from './create-ksadk-agent.js';
import { ScriptedChatModel } from './testing/scripted-chat-model.js';

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpTestServer({
    tools: [
      { name: 'env_lookup', inputSchema: { type: 'object' }, handler: () => ({ content: [] }) },
    ],
  });
});
afterAll(() => server.close());

describe('createKsadkAgent reads the environment like every adapter', () => {
  it('loads MCP servers from KSADK_MCP_SERVERS and reports an overridden variable', async () => {
    const env = { KSADK_MCP_SERVERS: JSON.stringify([{ name: 'env', url: server.url }]) };
    const model = new ScriptedChatModel(['Hello.']);
    const loaded = await createKsadkAgent({ model, env, gateway: createToolGateway({ env }) });
    try {
      await loaded.agent.invoke(
        { messages: [{ role: 'user', content: 'hi' }] },
        { configurable: { thread_id: 'env' } },
      );
      expect(model.boundToolNames).toContain('env_lookup');
    } finally {
      await loaded.close();
    }
    const overridden = await createKsadkAgent({
      model: new ScriptedChatModel([]),
      env,
      mcp: false,
    });
    expect(overridden.warnings).toContain(
      'KSADK_MCP_SERVERS is set but the mcp option overrides it',
    );
  });
  it('refuses an unknown option key, naming the intended one', async () => {
    await expect(
      createKsadkAgent({ model: new ScriptedChatModel([]), tool: [] } as never),
    ).rejects.toThrowError(/no option "tool" — did you mean "tools"/);
  });
});
