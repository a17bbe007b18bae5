import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InMemoryRunner, LlmAgent } from '@google/adk';
import { loadAdkAgent } from '@ksadk/adk';
import { ScriptedLlm } from '@ksadk/adk/testing';
import { createToolGateway, type Tool } from '@ksadk/core';
import { loadMcpToolsets, type McpStdioServerOptions } from '@ksadk/core/mcp';
import { geminiToolSchema, langChainToolSchema, openAIToolSchema } from '@ksadk/core/schema';
import { createKsadkAgent } from '@ksadk/langgraph';
import { ScriptedChatModel } from '@ksadk/langgraph/testing';
import { createToolLoop, loadOpenAITools } from '@ksadk/openai';
import { createScriptedOpenAIFetch } from '@ksadk/openai/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAIStrictViolations } from '../../../test-support/openai-strict-rules.js';
import { schemaLoss } from './schema-loss.js';
import { FIELD_SERVERS, FIELD_TIMEOUT_MS, type FieldContext, type FieldServer } from './servers.js';

// The MCP servers people install, as they ship on npm, over stdio: through gateway.invoke and
// through each framework's adapter with its scripted model. CI runs those marked `inCi`
// (filesystem, memory, Notion); `pnpm test:field` runs every one (KSADK_FIELD_SERVERS=all, or a
// comma list of names).

const wanted = process.env['KSADK_FIELD_SERVERS']?.trim();
const servers = FIELD_SERVERS.filter((server) =>
  !wanted ? server.inCi : wanted === 'all' || wanted.split(',').includes(server.name),
);

let base: string;
let page: Server;
let context: FieldContext;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'ksadk-field-'));
  await writeFile(
    path.join(base, 'long.txt'),
    Array.from(
      { length: 500 },
      (_, line) => `line ${String(line).padStart(4, '0')} ${'x'.repeat(30)}`,
    ).join('\n'),
  );
  page = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(
      '<html><head><title>Field test page</title></head><body><p>pack an umbrella</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  context = {
    data: base,
    pageUrl: `http://127.0.0.1:${(page.address() as { port: number }).port}/`,
  };
});
afterAll(async () => {
  page?.close();
  await rm(base, { recursive: true, force: true });
});

/** The server's own tools/list, read with the SDK's plain client. */
async function listedBy(
  entry: McpStdioServerOptions,
): Promise<{ name: string; inputSchema: Record<string, unknown> }[]> {
  const client = new Client({ name: 'field-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: [...(entry.args ?? [])],
      env: { PATH: process.env['PATH'] ?? '', ...(entry.env ?? {}) },
      stderr: 'ignore',
    }),
  );
  try {
    const tools: { name: string; inputSchema: Record<string, unknown> }[] = [];
    let cursor: string | undefined;
    do {
      const listed = await client.listTools(cursor ? { cursor } : {});
      tools.push(...(listed.tools as typeof tools));
      cursor = listed.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close();
  }
}

const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const named = (tools: readonly Tool[], original: string): Tool => {
  const tool = tools.find((candidate) => (candidate.originalName ?? candidate.name) === original);
  if (!tool)
    throw new Error(
      `no tool ${original} in ${tools.map((candidate) => candidate.name).join(', ')}`,
    );
  return tool;
};

describe.each(servers.map((server) => [server.name, server] as const))(
  '%s over stdio',
  (_name, server: FieldServer) => {
    let entry: McpStdioServerOptions & { name: string };
    let listed: { name: string; inputSchema: Record<string, unknown> }[];
    let loaded: Awaited<ReturnType<typeof loadMcpToolsets>>;
    beforeAll(async () => {
      entry = server.entry(context);
      listed = await listedBy(entry);
      loaded = await loadMcpToolsets([entry]);
    }, 600_000);
    afterAll(async () => {
      await loaded?.close();
    });

    it('offers every tool the server lists, with no problem for a correct configuration', () => {
      expect(listed.length).toBeGreaterThan(0);
      expect(loaded.problems).toEqual([]);
      expect(loaded.tools.map((tool) => tool.originalName ?? tool.name).sort()).toEqual(
        listed.map((tool) => tool.name).sort(),
      );
    });

    it("drops no property, required field or enum value in any framework's schema; strict ones follow OpenAI's rules", () => {
      const lost: string[] = [];
      for (const raw of listed) {
        const tool = named(loaded.tools, raw.name);
        const openai = openAIToolSchema(tool);
        if (openai.strict)
          for (const problem of openAIStrictViolations(openai.schema))
            lost.push(`${raw.name} (strict): ${problem}`);
        const targets: [string, Record<string, unknown>][] = [
          ['openai', openai.schema],
          ['gemini', geminiToolSchema(tool)],
          ['langchain', langChainToolSchema(tool) as Record<string, unknown>],
        ];
        for (const [target, schema] of targets)
          for (const loss of schemaLoss(raw.inputSchema, schema))
            lost.push(`${raw.name} (${target}): ${loss}`);
      }
      expect(lost).toEqual([]);
    });

    it('answers its offline calls through the gateway, and its network calls fail cleanly within the timeout', async () => {
      for (const call of server.offline) {
        const result = await gateway.invoke(named(loaded.tools, call.tool), call.args(context));
        expect(result, call.tool).toMatchObject({ ok: true });
        expect(JSON.stringify(result), call.tool).toMatch(call.expect);
      }
      for (const call of server.network) {
        const started = performance.now();
        const result = await gateway.invoke(named(loaded.tools, call.tool), call.args);
        expect(result, call.tool).toMatchObject({ ok: false });
        // A tool with side effects that ran out of time may have acted: outcome_unknown.
        expect([
          'mcp_tool_error',
          'mcp_error',
          'tool_timeout',
          'outcome_unknown',
          'mcp_unavailable',
        ]).toContain(result['error_type']);
        expect(performance.now() - started, call.tool).toBeLessThan(FIELD_TIMEOUT_MS + 5_000);
      }
    });

    /** The call each framework's model makes: the first offline one, else the first network one. */
    const probe = (): {
      tool: string;
      args: (context: FieldContext) => Record<string, unknown>;
    } => {
      const offline = server.offline[0];
      if (offline) return offline;
      const network = server.network[0]!;
      return { tool: network.tool, args: () => network.args };
    };
    /** A function turn: answers from the tool result, as the model saw it. */
    const reply = (seen: string): string =>
      /\\?"ok\\?":\s*false/.test(seen) ? 'It failed.' : 'It worked.';

    it('LangGraph: the scripted model calls it and reads the result', async () => {
      const call = probe();
      const { agent, assembly, close } = await createKsadkAgent({
        model: new ScriptedChatModel([
          { toolCalls: [{ name: named(loaded.tools, call.tool).name, args: call.args(context) }] },
          (messages) => reply(JSON.stringify(messages.at(-1)?.content)),
        ]),
        mcp: [entry],
        builtins: false,
        environment: false,
        gateway,
      });
      try {
        expect(assembly.tools.length).toBe(listed.length);
        const state = await agent.invoke(
          { messages: [{ role: 'user', content: 'go' }] },
          { configurable: { thread_id: server.name } },
        );
        const last = String(state.messages.at(-1)?.content);
        expect(last).toBe(server.offline.length > 0 ? 'It worked.' : 'It failed.');
      } finally {
        await close();
      }
    });

    it('ADK: the scripted model calls it and reads the result', async () => {
      const call = probe();
      const agent = new LlmAgent({
        name: 'field',
        model: new ScriptedLlm([
          { toolCalls: [{ name: named(loaded.tools, call.tool).name, args: call.args(context) }] },
          (request) => reply(JSON.stringify(request.contents.at(-1))),
        ]),
      });
      const { close } = await loadAdkAgent(agent, {
        mcp: [entry],
        builtins: false,
        environment: false,
        gateway,
      });
      try {
        const runner = new InMemoryRunner({ agent, appName: 'field' });
        const session = await runner.sessionService.createSession({
          appName: 'field',
          userId: 'u',
        });
        let last = '';
        for await (const event of runner.runAsync({
          userId: 'u',
          sessionId: session.id,
          newMessage: { role: 'user', parts: [{ text: 'go' }] },
        }))
          for (const part of event.content?.parts ?? []) if (part.text) last = part.text;
        expect(last).toBe(server.offline.length > 0 ? 'It worked.' : 'It failed.');
      } finally {
        await close();
      }
    });

    it('OpenAI: the scripted model calls it and reads the result', async () => {
      const call = probe();
      const load = await loadOpenAITools({
        mcp: [entry],
        builtins: false,
        environment: false,
        gateway,
      });
      try {
        const scripted = createScriptedOpenAIFetch([
          { toolCalls: [{ name: named(load.tools, call.tool).name, args: call.args(context) }] },
          (body) => reply(JSON.stringify(body['messages'])),
        ]);
        const client = new OpenAI({
          apiKey: 'offline',
          baseURL: 'http://scripted.invalid/v1',
          fetch: scripted.fetch,
          maxRetries: 0,
        });
        const result = await createToolLoop(client, {
          model: 'scripted',
          tools: load.tools,
          gateway: load.gateway,
        }).run('go');
        expect(result).toMatchObject({
          status: 'completed',
          output: server.offline.length > 0 ? 'It worked.' : 'It failed.',
        });
      } finally {
        await load.close();
      }
    });
  },
);
