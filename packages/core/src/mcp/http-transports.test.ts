import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { Server as LowLevelServer } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { startMcpTestServer } from '../testing/mcp-test-server.js';
import { loadMcpToolsets } from './load-mcp-toolsets.js';
import { parseMcpServerConfigs } from './mcp-config.js';
import { createMcpToolset } from './mcp-toolset.js';

const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface LegacyServer {
  url: string;
  /** `METHOD path` of every request, in order. */
  requests: string[];
  headers: IncomingMessage['headers'][];
}

/**
 * A legacy HTTP+SSE MCP server (protocol 2024-11-05) on 127.0.0.1: `GET /sse` opens the event
 * stream, `POST /messages?sessionId=` carries client messages, and a Streamable HTTP POST to
 * `/sse` is answered with `postStatus` (404 or 405, as such servers do) — or any other status.
 */
async function startLegacySseServer(postStatus: number): Promise<LegacyServer> {
  const sessions = new Map<string, SSEServerTransport>();
  const requests: string[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method} ${url.pathname}`);
    headers.push(request.headers);
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      sessions.set(transport.sessionId, transport);
      response.on('close', () => sessions.delete(transport.sessionId));
      const mcp = new McpServer({ name: 'legacy', version: '1.0.0' });
      mcp.registerTool(
        'shout',
        { description: 'Upper-cases a word.', inputSchema: { word: z.string() } },
        ({ word }) => ({ content: [{ type: 'text', text: word.toUpperCase() }] }),
      );
      await mcp.connect(transport);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/messages') {
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (transport) {
        await transport.handlePostMessage(request, response);
        return;
      }
      response.writeHead(404).end('unknown session');
      return;
    }
    response.writeHead(postStatus, { 'content-type': 'text/plain' }).end(`no ${request.method}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const transport of sessions.values()) await transport.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/sse`, requests, headers };
}

function toolsetFor(entry: Record<string, unknown>) {
  const { configs, problems } = parseMcpServerConfigs([entry]);
  expect(problems).toEqual([]);
  const toolset = createMcpToolset(configs[0]!);
  cleanups.push(() => toolset.close());
  return toolset;
}

describe('legacy HTTP+SSE fallback', () => {
  it.each([404, 405])(
    'a server answering Streamable HTTP with %i is retried over SSE, remembered as SSE, and works',
    async (status) => {
      const legacy = await startLegacySseServer(status);
      const toolset = toolsetFor({
        name: 'legacy',
        url: legacy.url,
        api_key: 'sk-legacy-0a1b2c3d4e',
        headers: { 'X-Team': 'blue-team' },
      });
      expect(toolset.diagnostics().transport).toBeUndefined();
      const [tool] = await toolset.tools();
      expect(tool?.name).toBe('shout');
      expect(toolset.diagnostics()).toMatchObject({ transport: 'sse', starts: 1 });
      expect(await gateway.invoke(tool!, { word: 'hello' })).toMatchObject({
        ok: true,
        text: 'HELLO',
      });
      expect(legacy.requests.slice(0, 3)).toEqual(['POST /sse', 'GET /sse', 'POST /messages']);
      // The credentials go with every SSE request too.
      for (const headers of legacy.headers) {
        expect(headers.authorization).toBe('Bearer sk-legacy-0a1b2c3d4e');
        expect(headers['x-team']).toBe('blue-team');
      }
      // Reconnecting goes straight to SSE: no second Streamable HTTP attempt.
      await toolset.close();
      expect(await gateway.invoke(tool!, { word: 'again' })).toMatchObject({ text: 'AGAIN' });
      expect(legacy.requests.filter((request) => request === 'POST /sse')).toHaveLength(1);
      expect(toolset.diagnostics()).toMatchObject({ transport: 'sse', starts: 2 });
    },
  );

  it('type "sse" goes to SSE directly', async () => {
    const legacy = await startLegacySseServer(405);
    const toolset = toolsetFor({ name: 'legacy', url: legacy.url, type: 'sse' });
    expect((await toolset.tools()).map((tool) => tool.name)).toEqual(['shout']);
    expect(legacy.requests).not.toContain('POST /sse');
  });

  it('no fallback on a 5xx or a refused connection; a failed fallback reports both errors', async () => {
    const broken = await startLegacySseServer(500);
    const refused = await startLegacySseServer(404);
    const refusedUrl = refused.url;
    await cleanups.pop()!(); // stop it: its port now refuses connections
    const loaded = await loadMcpToolsets([
      { name: 'broken', url: broken.url },
      { name: 'refused', url: refusedUrl },
    ]);
    expect(loaded.toolsets).toEqual([]);
    expect(loaded.problems).toEqual([
      expect.stringMatching(
        /^MCP server broken is unreachable: .*Error POSTing to endpoint: no POST$/,
      ),
      expect.stringMatching(/^MCP server refused is unreachable: /),
    ]);
    expect(loaded.problems.join()).not.toMatch(/SSE/);
    expect(broken.requests).not.toContain('GET /sse');
    // A 4xx whose SSE retry fails too: both are reported.
    const plain = createServer((_request, response) => response.writeHead(404).end('nothing here'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => plain.close(() => resolve())));
    const { port } = plain.address() as AddressInfo;
    const nothing = await loadMcpToolsets([
      { name: 'nothing', url: `http://127.0.0.1:${port}/mcp` },
    ]);
    expect(nothing.problems).toEqual([
      expect.stringMatching(
        /^MCP server nothing is unreachable: it answered Streamable HTTP with 404 \(.*nothing here\), and the legacy SSE transport failed too: .*404/,
      ),
    ]);
  });

  it('a Streamable HTTP server is not retried over SSE, and stays Streamable HTTP', async () => {
    const server = await startMcpTestServer({
      tools: [
        {
          name: 'ping',
          inputSchema: { type: 'object' },
          handler: () => ({ content: [{ type: 'text', text: 'pong' }] }),
        },
      ],
    });
    cleanups.push(() => server.close());
    const toolset = toolsetFor({ name: 'modern', url: server.url });
    const [tool] = await toolset.tools();
    expect(await gateway.invoke(tool!, {})).toMatchObject({ text: 'pong' });
    expect(toolset.diagnostics()).toMatchObject({ transport: 'streamable-http', starts: 1 });
    expect(server.methods.filter((method) => method === 'initialize')).toHaveLength(1);
  });

  it('Streamable HTTP never resumes a stream after a JSON-RPC error reply (no replay of old server messages)', async () => {
    // A resumable server (event store, priming event ids) whose tools/call answers with a
    // JSON-RPC error: SDK 1.x would take the stream as unfinished and re-open it with GET +
    // Last-Event-ID a second later, and the store would replay old messages.
    const requests: { method?: string; lastEventId?: string | string[] }[] = [];
    const low = new LowLevelServer(
      { name: 'resumable', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    low.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'refuse', inputSchema: { type: 'object' } }],
    }));
    low.setRequestHandler(CallToolRequestSchema, () => {
      throw new McpError(-32010, 'refused on purpose');
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
    });
    await low.connect(transport);
    const http = createServer((request, response) => {
      requests.push({ method: request.method, lastEventId: request.headers['last-event-id'] });
      void transport.handleRequest(request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      await low.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    });
    const { port } = http.address() as AddressInfo;
    const toolset = toolsetFor({ name: 'resumable', url: `http://127.0.0.1:${port}/mcp` });
    const [tool] = await toolset.tools();
    expect(await gateway.invoke(tool!, {})).toMatchObject({
      ok: false,
      error_type: 'mcp_error',
      error_message: expect.stringContaining('refused on purpose'),
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(requests.filter((request) => request.lastEventId !== undefined)).toEqual([]);
  });
});
