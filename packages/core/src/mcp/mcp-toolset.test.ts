import { afterEach, describe, expect, it } from 'vitest';
import { createToolCatalog } from '../catalog/tool-catalog.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { isApprovalRequired } from '../gateway/results.js';
import { geminiToolSchema, langChainToolSchema, openAIToolSchema } from '../schema/tool-schemas.js';
import {
  type McpTestServer,
  type McpTestTool,
  startMcpTestServer,
} from '../testing/mcp-test-server.js';
import type { Tool } from '../tool/tool.js';
import { loadMcpToolsets, loadMcpToolsetsFromEnv } from './load-mcp-toolsets.js';
import { loadMcpServerConfigsFromEnv, parseMcpServerConfigs } from './mcp-config.js';
import { createMcpToolset } from './mcp-toolset.js';

const servers: McpTestServer[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const server of servers.splice(0)) await server.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

const weather: McpTestTool = {
  name: 'weather_forecast',
  description: 'Forecast for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  handler: ({ city }) => ({
    ...text(`forecast:${String(city)}`),
    structuredContent: { city, days: 3 },
    _meta: { source: 'test' },
  }),
};
const failing: McpTestTool = {
  name: 'always_fails',
  inputSchema: { type: 'object' },
  handler: () => ({ ...text('boom from server'), isError: true }),
};
const slow: McpTestTool = {
  name: 'slow',
  inputSchema: { type: 'object' },
  handler: () => new Promise((resolve) => setTimeout(() => resolve(text('late')), 2000)),
};

async function serve(
  tools: McpTestTool[],
  options: { stateful?: boolean; pageSize?: number } = {},
) {
  const server = await startMcpTestServer({ tools, ...options });
  servers.push(server);
  return server;
}

async function load(configs: unknown) {
  const loaded = await loadMcpToolsets(configs);
  cleanups.push(loaded.close);
  return loaded;
}

const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const byName = (tools: Tool[], name: string) => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('configuration', () => {
  it('keeps the fields, reports each bad entry with index, field and reason, and keeps the good ones', () => {
    const result = parseMcpServerConfigs(
      JSON.stringify([
        {
          name: 'weather',
          url: 'http://127.0.0.1:9/mcp',
          api_key: 'sk-secret-123',
          tool_filter: ['a'],
          tool_name_prefix: 'wx',
        },
        { name: '', url: 'http://x/mcp' },
        { name: 'no-mcp', url: 'https://example.com/api' },
        { name: 'relative', url: '/mcp' },
        { name: 'filter', url: 'http://x/mcp', tool_filter: [''] },
        { name: 'extra', url: 'http://y/mcp', surprise: true },
        'not an object',
      ]),
    );
    expect(result.configs.map((config) => config.name)).toEqual(['weather', 'extra']);
    // The wire format's snake_case is read into the camelCase options.
    expect(result.configs[0]).toMatchObject({
      url: 'http://127.0.0.1:9/mcp',
      apiKey: 'sk-secret-123',
      toolFilter: ['a'],
      toolNamePrefix: 'wx',
      riskLevel: 'medium',
    });
    expect(
      parseMcpServerConfigs([
        { name: 'camel', url: 'http://z/mcp', toolNamePrefix: 'z', timeoutMs: 5 },
      ]).configs[0],
    ).toMatchObject({ toolNamePrefix: 'z', timeoutMs: 5 });
    expect(
      parseMcpServerConfigs([{ name: 'both', url: 'http://z/mcp', apiKey: 'a', api_key: 'b' }])
        .problems[0]?.message,
    ).toMatch(/give apiKey or api_key, not both/);
    const messages = result.problems.map((problem) => problem.message);
    expect(messages).toEqual([
      'KSADK_MCP_SERVERS[1].name: must be a non-empty string',
      'KSADK_MCP_SERVERS[2].url: MCP server url must point to a /mcp endpoint',
      'KSADK_MCP_SERVERS[3].url: MCP server url must be an absolute http(s) URL',
      'KSADK_MCP_SERVERS[4].tool_filter: must be a list of non-empty strings',
      'KSADK_MCP_SERVERS[5].surprise: unknown field, ignored',
      'KSADK_MCP_SERVERS[6]: must be an object',
    ]);
    expect(JSON.stringify(result.problems)).not.toContain('sk-secret');
    expect(parseMcpServerConfigs('{}').problems[0]?.message).toMatch(/must be a JSON array/);
    expect(parseMcpServerConfigs('[oops').problems[0]?.message).toMatch(/valid JSON array/);
  });

  it('strict loading throws a KsadkError instead', () => {
    expect(() =>
      loadMcpServerConfigsFromEnv({
        env: { KSADK_MCP_SERVERS: '[{"name":"a","url":"http://x/api"}]' },
        strict: true,
      }),
    ).toThrowError(/\/mcp endpoint/);
  });
});

describe('an MCP toolset against a real server', () => {
  it('lists (across pages), filters on original names, prefixes, calls, and sends the bearer header', async () => {
    const server = await serve([weather, failing, slow], { pageSize: 1 });
    const { tools, problems } = await load([
      {
        name: 'weather',
        url: server.url,
        apiKey: 'sk-live-abcdef123456',
        toolFilter: ['weather_forecast', 'always_fails'],
        toolNamePrefix: 'wx',
      },
    ]);
    expect(problems).toEqual([]);
    expect(
      tools.map((tool) => [tool.name, tool.originalName, tool.group, tool.policy.riskLevel]),
    ).toEqual([
      ['wx_weather_forecast', 'weather_forecast', 'mcp:weather', 'medium'],
      ['wx_always_fails', 'always_fails', 'mcp:weather', 'medium'],
    ]);
    const result = await gateway.invoke(byName(tools, 'wx_weather_forecast'), { city: 'beijing' });
    expect(result).toEqual({
      ok: true,
      // The text is not the structured content repeated, so both stay; the text only once.
      text: 'forecast:beijing',
      structured_content: { city: 'beijing', days: 3 },
      _meta: { source: 'test' },
    });
    expect(
      server.requests.every(
        (request) => request.headers.authorization === 'Bearer sk-live-abcdef123456',
      ),
    ).toBe(true);
    expect(server.methods.filter((method) => method === 'tools/list')).toHaveLength(3);
    expect(server.methods.filter((method) => method === 'initialize')).toHaveLength(1);
  });

  it('maps isError to mcp_tool_error, defaults missing arguments to {}, and validates against the server schema', async () => {
    const server = await serve([weather, failing]);
    const { tools } = await load([{ name: 'w', url: server.url }]);
    expect(await gateway.invoke(byName(tools, 'always_fails'), undefined)).toMatchObject({
      ok: false,
      error_type: 'mcp_tool_error',
      error_message: 'boom from server',
    });
    expect(await gateway.invoke(byName(tools, 'weather_forecast'), {})).toMatchObject({
      ok: false,
      error_type: 'invalid_arguments',
    });
    expect(server.methods.filter((method) => method === 'tools/call')).toHaveLength(1);
  });

  it('never lets a server echo its credentials to the model: JSON-RPC errors, isError text, results, HTTP error bodies', async () => {
    const key = 'sk-echo-0f1e2d3c4b5a';
    const headerSecret = 'hdr-7a6b5c4d3e2f';
    let server: McpTestServer | undefined;
    const seen = () => JSON.stringify(server!.requests.at(-1)?.headers ?? {});
    const echoing: McpTestTool[] = [
      {
        name: 'throws_headers',
        inputSchema: { type: 'object' },
        handler: () => {
          throw new Error(`unauthorised request with ${seen()}`);
        },
      },
      {
        name: 'is_error_headers',
        inputSchema: { type: 'object' },
        handler: () => ({ ...text(`denied: ${seen()}`), isError: true }),
      },
      {
        name: 'returns_headers',
        inputSchema: { type: 'object' },
        handler: () => ({ ...text(seen()), structuredContent: { headers: seen() } }),
      },
    ];
    server = await serve(echoing);
    const { tools } = await load([
      { name: 'echo', url: server.url, apiKey: key, headers: { 'X-Tenant-Token': headerSecret } },
    ]);
    for (const tool of tools) {
      const result = JSON.stringify(await gateway.invoke(tool, {}));
      expect(result, tool.name).not.toContain(key);
      expect(result, tool.name).not.toContain(headerSecret);
      expect(result, tool.name).toContain('[REDACTED]');
    }
    // A server that answers HTTP 500 with the token in its body, before any session exists.
    const { createServer } = await import('node:http');
    const broken = createServer((request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`internal error, request had ${request.headers.authorization}`);
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => broken.close(() => resolve())));
    const port = (broken.address() as { port: number }).port;
    const loaded = await load([{ name: 'down', url: `http://127.0.0.1:${port}/mcp`, apiKey: key }]);
    expect(loaded.problems.join(' ')).toMatch(/down/);
    expect(JSON.stringify(loaded)).not.toContain(key);
  });

  it('skips a tool whose schema has a $ref loop at load, naming server and tool, and keeps the others', async () => {
    const looping: McpTestTool[] = [
      { name: 'self_ref', inputSchema: { type: 'object', $ref: '#' }, handler: () => text('x') },
      {
        name: 'pair_ref',
        inputSchema: {
          type: 'object',
          properties: { a: { $ref: '#/$defs/b' } },
          $defs: { b: { allOf: [{ $ref: '#/$defs/c' }] }, c: { $ref: '#/$defs/b' } },
        },
        handler: () => text('x'),
      },
      {
        name: 'tree',
        inputSchema: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#' } } },
        },
        handler: (args) => text(JSON.stringify(args)),
      },
    ];
    const server = await serve([weather, ...looping]);
    const { tools, problems } = await load([{ name: 'loops', url: server.url }]);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['tree', 'weather_forecast']);
    expect(problems.join('\n')).toMatch(/loops.*self_ref.*\$ref loop/s);
    expect(problems.join('\n')).toMatch(/pair_ref/);
    // The recursive-but-descending schema works, deep or not (within the argument limits).
    const deep = { children: [{ children: [{ children: [] }] }] };
    expect(await gateway.invoke(byName(tools, 'tree'), deep)).toMatchObject({ ok: true });
    let tooDeep: Record<string, unknown> = {};
    for (let level = 0; level < 10_000; level += 1) tooDeep = { children: [tooDeep] };
    expect(await gateway.invoke(byName(tools, 'tree'), tooDeep)).toMatchObject({
      ok: false,
      error_type: 'invalid_arguments',
    });
  });

  it('is gated like any tool: medium risk asks in risk mode', async () => {
    const server = await serve([weather]);
    const { tools } = await load([{ name: 'w', url: server.url }]);
    const strict = createToolGateway({ env: {} });
    expect(
      isApprovalRequired(await strict.invoke(byName(tools, 'weather_forecast'), { city: 'x' })),
    ).toBe(true);
    expect(server.methods).not.toContain('tools/call');
  });

  it('times out a slow call: unknown for a tool that may write, retryable for a trusted read', async () => {
    const server = await serve([
      slow,
      { ...slow, name: 'slow_read', annotations: { readOnlyHint: true } },
    ]);
    // 1 s: enough for initialize and tools/list on a loaded machine, well under the tool's 2 s.
    const { tools } = await load([
      { name: 's', url: server.url, timeoutMs: 1000, trustAnnotations: true },
    ]);
    const write = await gateway.invoke(byName(tools, 'slow'), {});
    expect(write).toMatchObject({ ok: false, error_type: 'outcome_unknown', outcome: 'unknown' });
    expect(write).not.toHaveProperty('retryable');
    expect(await gateway.invoke(byName(tools, 'slow_read'), {})).toMatchObject({
      ok: false,
      error_type: 'tool_timeout',
      retryable: true,
    });
  });

  it('reports and skips a server that is down at load (strict throws)', async () => {
    const server = await serve([weather]);
    const { tools, problems, toolsets } = await load([
      { name: 'down', url: 'http://127.0.0.1:9/mcp', apiKey: 'sk-never-shown-000' },
      { name: 'up', url: server.url },
    ]);
    expect(toolsets.map((toolset) => toolset.name)).toEqual(['up']);
    expect(tools.map((tool) => tool.name)).toEqual(['weather_forecast']);
    expect(problems).toEqual([expect.stringMatching(/^MCP server down is unreachable/)]);
    expect(problems.join()).not.toContain('sk-never-shown');
    await expect(
      loadMcpToolsets([{ name: 'down', url: 'http://127.0.0.1:9/mcp' }], { strict: true }),
    ).rejects.toThrowError(/unreachable/);
  });

  it('an expired session: the call is not replayed but reported retryable, the next call re-initialises', async () => {
    const server = await serve([weather], { stateful: true });
    const toolset = createMcpToolset(
      parseMcpServerConfigs([{ name: 'w', url: server.url }]).configs[0]!,
    );
    cleanups.push(() => toolset.close());
    const [tool] = await toolset.tools();
    expect(await gateway.invoke(tool!, { city: 'a' })).toMatchObject({ ok: true });
    await server.forgetSessions();
    const calls = () => server.methods.filter((method) => method === 'tools/call').length;
    const before = calls();
    expect(await gateway.invoke(tool!, { city: 'b' })).toMatchObject({
      ok: false,
      error_type: 'mcp_session_expired',
      retryable: true,
    });
    expect(calls()).toBe(before + 1);
    expect(server.methods.filter((method) => method === 'initialize')).toHaveLength(1);
    expect(await gateway.invoke(tool!, { city: 'c' })).toMatchObject({
      ok: true,
      text: 'forecast:c',
    });
    expect(server.methods.filter((method) => method === 'initialize')).toHaveLength(2);
    await server.forgetSessions();
    expect((await toolset.refresh()).map((t) => t.name)).toEqual(['weather_forecast']);
    await toolset.close();
    expect(server.requests.at(-1)?.method).toBe('DELETE');
  });

  it('a server restarted mid-session: list recovers; a call is never replayed; the next call works', async () => {
    const server = await serve([weather], { stateful: true });
    const toolset = createMcpToolset(
      parseMcpServerConfigs([{ name: 'w', url: server.url }]).configs[0]!,
    );
    cleanups.push(() => toolset.close());
    const [tool] = await toolset.tools();
    await server.restart();
    expect((await toolset.refresh()).map((t) => t.name)).toEqual(['weather_forecast']);
    await server.restart();
    const calls = () => server.methods.filter((method) => method === 'tools/call').length;
    const before = calls();
    const interrupted = await gateway.invoke(tool!, { city: 'b' });
    expect(interrupted).toMatchObject({ ok: false });
    // Refused by the new server (not run: retryable), or lost on the old connection after it was
    // sent (it may have run: outcome_unknown for a tool that may write).
    expect(['mcp_session_expired', 'mcp_unavailable', 'outcome_unknown']).toContain(
      interrupted['error_type'],
    );
    if (interrupted['error_type'] !== 'outcome_unknown')
      expect(interrupted).toMatchObject({ retryable: true });
    expect(calls() - before).toBeLessThanOrEqual(1);
    expect(await gateway.invoke(tool!, { city: 'c' })).toMatchObject({
      ok: true,
      text: 'forecast:c',
    });
  });

  it('gives structured errors while a server is down, and recovers when it is back', async () => {
    const server = await serve([weather]);
    const toolset = createMcpToolset(
      parseMcpServerConfigs([{ name: 'w', url: server.url }]).configs[0]!,
    );
    cleanups.push(() => toolset.close());
    const [tool] = await toolset.tools();
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    // The first call may go out on the connection the closing server dropped (sent, so perhaps
    // run: outcome_unknown for a tool that may write); the next is refused before it is sent.
    const first = await gateway.invoke(tool!, { city: 'x' });
    expect(['mcp_unavailable', 'outcome_unknown']).toContain(first['error_type']);
    expect(await gateway.invoke(tool!, { city: 'x' })).toMatchObject({
      ok: false,
      error_type: 'mcp_unavailable',
      retryable: true,
    });
    const port = Number(new URL(server.url).port);
    servers.push(await startMcpTestServer({ tools: [weather], port }));
    expect(await gateway.invoke(tool!, { city: 'y' })).toMatchObject({
      ok: true,
      text: 'forecast:y',
    });
  });

  it('keeps both of two colliding tool names, reports the collision, and sanitises a 90-character name', async () => {
    const long = 'x'.repeat(90);
    const one = await serve([weather]);
    const two = await serve([
      weather,
      { name: long, inputSchema: { type: 'object' }, handler: () => text('long ok') },
    ]);
    const { tools, problems } = await load([
      { name: 'one', url: one.url },
      { name: 'two', url: two.url },
    ]);
    const names = tools.map((tool) => tool.name);
    expect(names[0]).toBe('weather_forecast');
    expect(names[1]).toMatch(/^weather_forecast_[0-9a-f]{8}$/);
    expect(names[2]).toHaveLength(64);
    expect(problems).toEqual([expect.stringContaining('collides with mcp:one/weather_forecast')]);
    expect(await gateway.invoke(tools[1]!, { city: 'z' })).toMatchObject({ text: 'forecast:z' });
    expect(await gateway.invoke(tools[2]!, {})).toMatchObject({ text: 'long ok' });
  });

  it('de-duplicates servers by url and prefix', async () => {
    const server = await serve([weather]);
    const { toolsets, problems } = await load([
      { name: 'a', url: server.url },
      { name: 'b', url: server.url },
      { name: 'c', url: server.url, toolNamePrefix: 'c' },
    ]);
    expect(toolsets.map((toolset) => toolset.name)).toEqual(['a', 'c']);
    expect(problems).toEqual([expect.stringContaining('MCP server b: same url and prefix')]);
  });

  it('honours KSADK_ENABLE_MCP_TOOLS and joins the catalogue so search and the dispatcher find it', async () => {
    const server = await serve([weather]);
    const env = { KSADK_MCP_SERVERS: JSON.stringify([{ name: 'weather', url: server.url }]) };
    expect(
      (await loadMcpToolsetsFromEnv({ env: { ...env, KSADK_ENABLE_MCP_TOOLS: 'off' } })).tools,
    ).toEqual([]);
    const loaded = await loadMcpToolsetsFromEnv({ env });
    cleanups.push(loaded.close);
    const catalog = createToolCatalog({ workspace: false, env: {} });
    catalog.registerExternalTools(loaded.tools);
    const [search, dispatcher] = catalog.getTools({ mode: 'deferred' });
    const found = await gateway.invoke(search!, { query: 'weather forecast' });
    expect(
      (
        found['results'] as { name: string; group: string; execution: string; boundary: string }[]
      )[0],
    ).toMatchObject({
      name: 'weather_forecast',
      group: 'mcp:weather',
      execution: 'external',
      boundary: 'remote_mcp_server',
    });
    expect(
      await gateway.invoke(dispatcher!, {
        action: 'call',
        tool_name: 'weather_forecast',
        arguments: { city: 'beijing' },
      }),
    ).toMatchObject({
      ok: true,
      result: { text: 'forecast:beijing' },
    });
  });
});

describe('MCP schemas reach every framework form', () => {
  const schemas: Record<
    string,
    { schema: Record<string, unknown>; valid: Record<string, unknown>; strict: boolean }
  > = {
    ref_defs: {
      schema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { where: { $ref: '#/definitions/Place' } },
        required: ['where'],
        definitions: {
          Place: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
      },
      valid: { where: { city: 'Oslo' } },
      strict: true,
    },
    any_of: {
      schema: {
        type: 'object',
        properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] } },
        required: ['id'],
      },
      valid: { id: 3 },
      strict: true,
    },
    const_union: {
      schema: {
        type: 'object',
        properties: {
          level: {
            anyOf: [
              { type: 'number', const: 1 },
              { type: 'number', const: 2 },
            ],
          },
        },
        required: ['level'],
      },
      valid: { level: 2 },
      strict: true,
    },
    numeric_enum: {
      schema: {
        type: 'object',
        properties: { size: { type: 'integer', enum: [1, 2, 4] } },
        required: ['size'],
      },
      valid: { size: 4 },
      strict: true,
    },
    record: {
      schema: {
        type: 'object',
        properties: {
          env: {
            type: 'object',
            propertyNames: { type: 'string' },
            additionalProperties: { type: 'string' },
          },
        },
        required: ['env'],
      },
      valid: { env: { A: 'b' } },
      strict: false,
    },
  };

  it('OpenAI strict where lossless (else marked non-strict), Gemini keeps enums and $ref content, LangChain gets the JSON Schema; calls validate', async () => {
    const tools: McpTestTool[] = Object.entries(schemas).map(([name, { schema }]) => ({
      name,
      inputSchema: schema,
      handler: (args) => text(JSON.stringify(args)),
    }));
    const server = await serve(tools);
    const loaded = await load([{ name: 'schemas', url: server.url }]);
    for (const [name, { valid, strict }] of Object.entries(schemas)) {
      const tool = byName(loaded.tools, name);
      const openai = openAIToolSchema(tool);
      expect(openai.strict, name).toBe(strict);
      const gemini = JSON.stringify(geminiToolSchema(tool));
      expect(gemini).not.toContain('$schema');
      expect(gemini).not.toContain('definitions');
      const langchain = langChainToolSchema(tool) as Record<string, unknown>;
      expect(langchain['$schema']).toBeUndefined();
      expect(await gateway.invoke(tool, valid), name).toMatchObject({
        ok: true,
        text: JSON.stringify(valid),
      });
    }
    expect(JSON.stringify(geminiToolSchema(byName(loaded.tools, 'numeric_enum')))).toContain(
      '"enum":[1,2,4]',
    );
    expect(JSON.stringify(geminiToolSchema(byName(loaded.tools, 'ref_defs')))).toContain('"city"');
    expect(JSON.stringify(geminiToolSchema(byName(loaded.tools, 'const_union')))).toContain(
      '"enum":[1]',
    );
    expect(await gateway.invoke(byName(loaded.tools, 'numeric_enum'), { size: 3 })).toMatchObject({
      ok: false,
      error_type: 'invalid_arguments',
    });
  });
});
