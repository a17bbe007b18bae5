import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPersistedOutput } from '../budget/result-store.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { type McpTestServer, startMcpTestServer } from '../testing/mcp-test-server.js';
import type { Tool } from '../tool/tool.js';
import { takeToolMedia } from '../tool/tool-media.js';
import { loadMcpToolsets } from './load-mcp-toolsets.js';

// Results in the shapes real servers send them (faithful copies of
// @modelcontextprotocol/server-filesystem's read_text_file and read_media_file, and of a server
// that sends hundreds of parts), through a real MCP server on 127.0.0.1 and the gateway.

const FILE = Array.from(
  { length: 400 },
  (_, line) => `${String(line).padStart(4, '0')} ${'lorem ipsum '.repeat(4)}`,
).join('\n');
// A PNG of ~60 KB of base64, as read_media_file sends a picture.
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.alloc(45_000, 7),
]).toString('base64');

let server: McpTestServer;
let tools: Tool[];
let close: () => Promise<void>;
const gateway = createToolGateway({ approvalMode: 'full', env: {} });

beforeAll(async () => {
  server = await startMcpTestServer({
    tools: [
      {
        name: 'read_text_file',
        inputSchema: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
        handler: () => ({
          content: [{ type: 'text', text: FILE }],
          structuredContent: { content: FILE },
        }),
      },
      {
        name: 'read_media_file',
        inputSchema: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
        handler: () => ({
          content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
          structuredContent: { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] },
        }),
      },
      {
        name: 'upstream',
        description: `Calls an upstream API. ${'Long documentation. '.repeat(150)}`,
        inputSchema: { type: 'object', properties: {} },
        handler: () => {
          // A JSON-RPC error whose second line holds the reason.
          throw Object.assign(
            new Error('Upstream request failed\nconnect ECONNREFUSED 10.0.0.5:443'),
            {
              code: -32603,
            },
          );
        },
      },
      {
        name: 'many_parts',
        inputSchema: { type: 'object', properties: {} },
        handler: () => ({
          content: Array.from({ length: 150 }, (_, index) => ({
            type: 'text',
            text: `part ${index}`,
          })),
        }),
      },
    ],
  });
  const loaded = await loadMcpToolsets([{ name: 'fs', url: server.url }]);
  // A description cut is said, not silent.
  expect(loaded.problems).toEqual([
    expect.stringMatching(
      /^MCP server fs, tool upstream: its description \(\d+ characters\) is cut at 2000$/,
    ),
  ]);
  tools = loaded.tools;
  close = loaded.close;
});
afterAll(async () => {
  await close?.();
  await server?.close();
});

const byName = (name: string) => tools.find((tool) => tool.originalName === name)!;

describe('MCP results as real servers send them', () => {
  it('a file in content and again in structured content reaches the model once, whole (not a preview)', async () => {
    expect(FILE.length).toBeGreaterThan(20_000);
    const result = await gateway.invoke(
      byName('read_text_file'),
      { path: 'a.txt' },
      { callId: 'c1' },
    );
    const text = JSON.stringify(result);
    // Once: the budget counts what the model gets, and 20 KB is far under the 50 KB inline limit.
    expect(text.split('0399 lorem').length - 1).toBe(1);
    expect(result).toMatchObject({ ok: true, structured_content: { content: FILE } });
    expect(result).not.toHaveProperty('result_truncated');
    expect(result).not.toHaveProperty('text');
  });

  it('an image in content and in structured content: no base64 in the text the model reads', async () => {
    const result = await gateway.invoke(
      byName('read_media_file'),
      { path: 'a.png' },
      { callId: 'c2' },
    );
    const { result: forText, media } = takeToolMedia(result);
    expect(media).toHaveLength(1);
    expect(JSON.stringify(forText)).not.toContain('iVBORw0KGgo');
    expect(JSON.stringify(forText).length).toBeLessThan(2000);
    expect(forText['structured_content']).toEqual({
      content: [{ type: 'image', mimeType: 'image/png', media: 0 }],
    });
  });

  it('a server error keeps its cause (the second line), redacted and bounded', async () => {
    const result = await gateway.invoke(byName('upstream'), {});
    expect(result).toMatchObject({ ok: false, error_type: 'mcp_error' });
    expect(result['error_message']).toMatch(
      /Upstream request failed — connect ECONNREFUSED 10\.0\.0\.5:443/,
    );
  });

  it('parts past the 100th: their text is still sent, and the saved copy keeps every part', async () => {
    const context = { accountId: 'a', sessionId: 's' };
    const { runWithInvocationContext } = await import('../context/invocation-context.js');
    const result = await runWithInvocationContext(context, () =>
      gateway.invoke(byName('many_parts'), {}, { callId: 'c3' }),
    );
    expect(result['text']).toContain('part 149');
    expect(result['content_parts_dropped']).toBe(50);
    expect(result).not.toHaveProperty('content_overflow');
    const saved = (result['persisted_outputs'] as Record<string, { path: string }>)[
      'content_overflow'
    ];
    expect(saved?.path).toMatch(/^tool-results:\/\//);
    const bytes = await readPersistedOutput(saved!.path, gateway.budget, context);
    const parts = JSON.parse(Buffer.from(bytes!).toString('utf8')) as { text: string }[];
    expect(parts).toHaveLength(50);
    expect(parts.at(-1)).toMatchObject({ type: 'text', text: 'part 149' });
  });
});
