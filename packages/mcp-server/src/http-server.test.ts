import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolGateway, defineTool, type Tool } from '@ksadk/core';
import { createWorkspaceToolset } from '@ksadk/core/workspace';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveKsadkMcpHttp } from './index.js';

const env = { KSADK_TOOL_APPROVAL_MODE: 'ask' };
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ksadk-mcp-http-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A real SDK client over Streamable HTTP with a bearer token, accepting every elicitation. */
async function connect(url: string, token: string, sessionId?: string) {
  const client = new Client(
    { name: 'http-test', version: '1' },
    { capabilities: { elicitation: {} } },
  );
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept' };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    ...(sessionId ? { sessionId } : {}),
  });
  await client.connect(transport);
  return { client, transport, asked };
}

const parsed = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as Record<
    string,
    unknown
  >;

const post = (
  url: string,
  token: string | undefined,
  body: string,
  headers: Record<string, string> = {},
) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body,
  });

describe('Streamable HTTP, one local user behind a token', () => {
  it('binds to 127.0.0.1, refuses requests without the token, serves the SDK client with it', async () => {
    const gateway = createToolGateway({ env });
    const runs: unknown[] = [];
    const tools: Tool[] = [
      defineTool({
        name: 'delete_branch',
        description: 'Deletes a branch.',
        input: z.object({ name: z.string() }),
        policy: { riskLevel: 'high', sideEffects: ['git_delete'] },
        execute: (args) => {
          runs.push(args);
          return { deleted: args.name };
        },
      }),
    ];
    await expect(serveKsadkMcpHttp({ tools, gateway, host: '0.0.0.0' })).rejects.toThrow(
      /resolvePrincipal/,
    );
    const served = await serveKsadkMcpHttp({ tools, gateway });
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(served.token).toMatch(/^[\w-]{32}$/);
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      });
      expect((await post(served.url, undefined, init)).status).toBe(401);
      expect((await post(served.url, 'not-the-token-at-all', init)).status).toBe(401);
      expect(
        (await post(served.url, served.token, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'))
          .status,
      ).toBe(400);
      expect((await post(served.url, served.token, 'x'.repeat(5 * 1024 * 1024))).status).toBe(413);

      const { client, asked } = await connect(served.url, served.token!);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['delete_branch']);
      // The elicitation goes out on the call's own response stream, and the answer runs it once.
      const result = await client.callTool({ name: 'delete_branch', arguments: { name: 'old' } });
      expect(parsed(result)).toMatchObject({ ok: true, deleted: 'old' });
      expect(asked[0]).toContain('Allow delete_branch? Risk: high.');
      expect(runs).toEqual([{ name: 'old' }]);
      await client.close();
    } finally {
      await served.close();
    }
  }, 30_000);

  it('a client that disconnects mid-call cancels the call', async () => {
    const gateway = createToolGateway({ env });
    let aborted = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = defineTool({
      name: 'slow',
      description: 'Waits.',
      input: z.object({}),
      timeoutMs: 20_000,
      execute: (_args, { signal }) =>
        new Promise((resolve) => {
          started();
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ stopped: true });
          });
        }),
    });
    const served = await serveKsadkMcpHttp({ tools: [slow], gateway });
    try {
      const { transport, client } = await connect(served.url, served.token!);
      const abort = new AbortController();
      const call = fetch(served.url, {
        method: 'POST',
        signal: abort.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${served.token}`,
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 99,
          method: 'tools/call',
          params: { name: 'slow', arguments: {} },
        }),
      }).then((response) => response.text());
      await running;
      abort.abort();
      await call.catch(() => undefined);
      const until = Date.now() + 5000;
      while (!aborted && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(aborted).toBe(true);
      await client.close();
    } finally {
      await served.close();
    }
  }, 30_000);
});

describe('Streamable HTTP, several principals', () => {
  it('each principal has its own workspace, results and sessions', async () => {
    const gateway = createToolGateway({
      env,
      budget: { maxChars: 2000, persistThresholdChars: 1000 },
    });
    const workspace = createWorkspaceToolset({
      root: ({ accountId }) => path.join(root, accountId),
    });
    const dump = defineTool({
      name: 'dump',
      description: 'Big text.',
      input: z.object({}),
      resultBudget: { fields: ['text'] },
      execute: () => ({ text: 'secret '.repeat(10_000) }),
    });
    const tokens: Record<string, string> = {
      'alice-token-0123456789': 'alice',
      'bob-token-0123456789ab': 'bob',
    };
    const served = await serveKsadkMcpHttp({
      tools: [...workspace.tools, dump],
      gateway,
      maxSessionsPerPrincipal: 2,
      resolvePrincipal: (request) => {
        const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
        const accountId = Object.hasOwn(tokens, bearer) ? tokens[bearer] : undefined;
        return accountId ? { accountId, userId: accountId } : undefined;
      },
    });
    try {
      const alice = await connect(served.url, 'alice-token-0123456789');
      const bob = await connect(served.url, 'bob-token-0123456789ab');
      const wrote = await alice.client.callTool({
        name: 'write_workspace_file',
        arguments: { path: 'plan.md', content: 'alice only' },
      });
      expect(parsed(wrote)).toMatchObject({ ok: true });
      const read = await alice.client.callTool({
        name: 'read_workspace_file',
        arguments: { path: 'plan.md' },
      });
      expect(JSON.stringify(parsed(read))).toContain('alice only');
      const bobs = await bob.client.callTool({
        name: 'read_workspace_file',
        arguments: { path: 'plan.md' },
      });
      expect(parsed(bobs)['ok']).toBe(false);

      const big = await alice.client.callTool({ name: 'dump', arguments: {} });
      const link = (big.content as { type: string; uri?: string }[]).find(
        (part) => part.type === 'resource_link',
      );
      expect((await alice.client.readResource({ uri: link!.uri! })).contents).toHaveLength(1);
      await expect(bob.client.readResource({ uri: link!.uri! })).rejects.toThrow(/not found/i);

      // One principal cannot take every place: Alice's third session is refused, Bob's second is not.
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      });
      expect((await post(served.url, 'alice-token-0123456789', init)).status).toBe(200);
      expect((await post(served.url, 'alice-token-0123456789', init)).status).toBe(503);
      expect((await post(served.url, 'bob-token-0123456789ab', init)).status).toBe(200);

      // Bob with Alice's session id: as unknown as a made-up one.
      const hijack = await post(
        served.url,
        'bob-token-0123456789ab',
        '{"jsonrpc":"2.0","id":5,"method":"tools/list"}',
        {
          'mcp-session-id': alice.transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
      );
      expect(hijack.status).toBe(404);
      await alice.client.close();
      await bob.client.close();
    } finally {
      await served.close();
    }
  }, 30_000);
});
