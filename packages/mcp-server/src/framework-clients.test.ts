import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';
import { runToolUses } from '@ksadk/anthropic';
import { runWithInvocationContext } from '@ksadk/core';
import type { AgentToolsLoad } from '@ksadk/core/catalog';
import { runToolCalls } from '@ksadk/openai';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedCatalogue, serveCatalogue } from './test-fixtures/catalogue.js';

// One catalogue (workspace tools and a local skill run by the Skill Runtime), served over
// Streamable HTTP, reached by three real MCP clients: the MCP SDK's own, LangChain's
// @langchain/mcp-adapters and the AI SDK's @ai-sdk/mcp. The same calls must give the same answers
// as the gateway gives them directly and as KsADK's OpenAI and Anthropic adapters give them.

const principal = { userId: 'dev' };
let catalogue: ServedCatalogue;
let load: AgentToolsLoad;
let served: ServedCatalogue['served'];
let base: string;

beforeAll(async () => {
  catalogue = await serveCatalogue(
    ['sdk', 'langchain', 'ai-sdk', 'openai', 'anthropic'],
    principal,
  );
  ({ load, served, base } = catalogue);
}, 60_000);

afterAll(() => catalogue?.close());

const hostApproves = () => catalogue.hostApproves();

/** What a call answered, as the gateway's JSON, whichever client made it. */
type Answer = Record<string, unknown>;
type Caller = (name: string, args: Record<string, unknown>) => Promise<Answer>;

const textJson = (content: unknown): Answer => {
  // A string, one content block (LangChain's single-block output) or a list of blocks.
  const parts = (
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : Array.isArray(content)
        ? content
        : [content]
  ) as {
    type: string;
    text?: string;
  }[];
  return JSON.parse(parts.find((part) => part.type === 'text')!.text!) as Answer;
};

const calls = (file: string) =>
  [
    ['read_workspace_file', { path: 'notes.md' }],
    // The workspace edits only what this session has read.
    ['read_workspace_file', { path: file }],
    ['edit_workspace_file', { path: file, old_text: 'todo', new_text: 'done' }],
    ['execute_skills', { workflow_prompt: `report from ${file}`, skill_names: 'report' }],
  ] as const;

/** The parts of an answer that do not depend on when or through what it ran. */
const stable = (answer: Answer) => {
  const { ok, status, content, executed_skill, output_files, error_type } = answer as Record<
    string,
    unknown
  >;
  return { ok, status, content, executed_skill, output_files, error_type };
};

async function runTable(file: string, call: Caller): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const [name, args] of calls(file)) answers.push(await call(name, { ...args }));
  return answers;
}

describe('the same calls through three MCP clients and through the gateway', () => {
  it('MCP SDK client (elicitation), LangChain mcp-adapters and the AI SDK (waiting path, host approves), @ksadk/openai and @ksadk/anthropic', async () => {
    const headers = { authorization: `Bearer ${served.token}` };
    const direct = await runWithInvocationContext(
      { ...principal, sessionId: 'direct' },
      async () => {
        const read = load.tools.find((tool) => tool.name === 'read_workspace_file')!;
        return load.gateway.invoke(read, { path: 'notes.md' });
      },
    );

    // 1. The MCP SDK's own client, answering the approval through elicitation.
    const sdk = new Client({ name: 'sdk', version: '1' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    sdk.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept' };
    });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers } }),
    );
    const sdkTools = (await sdk.listTools()).tools.map((tool) => tool.name);
    const viaSdk = await runTable(
      'sdk.md',
      async (name, args) =>
        (await sdk.callTool({ name, arguments: args }, undefined, { timeout: 30_000 }))
          .structuredContent as Answer,
    );
    expect(asked.some((message) => message.includes('edit_workspace_file'))).toBe(true);
    await sdk.close();

    // 2. LangChain's MCP adapters: no elicitation, so the host approves through the gateway.
    const langchain = new MultiServerMCPClient({
      mcpServers: { ksadk: { transport: 'http', url: served.url, headers } },
    });
    const lcTools = await langchain.getTools();
    const stop = hostApproves();
    let viaLangChain: Answer[];
    try {
      viaLangChain = await runTable('langchain.md', async (name, args) =>
        textJson(
          await lcTools
            .find((tool) => tool.name === name)!
            .invoke(args)
            // The adapter throws for `isError`, with the text in its message.
            .catch((error: Error) => error.message.replace(/^[^{]*/, '')),
        ),
      );
    } finally {
      stop();
      await langchain.close();
    }

    // 3. The AI SDK's MCP client, also without elicitation: the host approves.
    const ai = await createMCPClient({ transport: { type: 'http', url: served.url, headers } });
    const aiTools = await ai.tools();
    const stopAi = hostApproves();
    let viaAi: Answer[];
    try {
      viaAi = await runTable('ai-sdk.md', async (name, args) => {
        const result = (await aiTools[name]!.execute!(args, {
          toolCallId: `ai-${name}`,
          messages: [],
        })) as { content: unknown };
        return textJson(result.content);
      });
    } finally {
      stopAi();
      await ai.close();
    }

    // 4. The same calls through two of KsADK's own adapters, approved in their idiom.
    let seq = 0;
    const viaOpenAI = await runWithInvocationContext({ ...principal, sessionId: 'openai' }, () =>
      runTable('openai.md', async (name, args) => {
        seq += 1;
        const call = {
          id: `call_${seq}`,
          type: 'function' as const,
          function: { name, arguments: JSON.stringify(args) },
        };
        let batch = await runToolCalls([call], { tools: load.tools, gateway: load.gateway });
        if (!batch.done) batch = await batch.resume({ [call.id]: { type: 'approve' } });
        return batch.calls[0]!.result as Answer;
      }),
    );
    const viaAnthropic = await runWithInvocationContext(
      { ...principal, sessionId: 'anthropic' },
      () =>
        runTable('anthropic.md', async (name, args) => {
          seq += 1;
          const block = { type: 'tool_use' as const, id: `toolu_${seq}`, name, input: args };
          let batch = await runToolUses([block as never], {
            tools: load.tools,
            gateway: load.gateway,
          });
          if (!batch.done) batch = await batch.resume({ [block.id]: 'approve' });
          return batch.calls[0]!.result as Answer;
        }),
    );

    // One table: every client, every call, the same answer; the read as the gateway gives it.
    for (const tools of [lcTools.map((tool) => tool.name), Object.keys(aiTools)])
      expect(tools.sort()).toEqual([...sdkTools].sort());
    expect(stable(viaSdk[0]!)).toEqual(stable(direct as Answer));
    for (const answers of [viaLangChain, viaAi, viaOpenAI, viaAnthropic]) {
      expect(answers.map(stable)).toEqual(viaSdk.map(stable));
    }
    expect(viaSdk.map((answer) => answer['ok'])).toEqual([true, true, true, true]);
    expect(viaSdk[3]).toMatchObject({ executed_skill: 'report' });
    for (const file of ['sdk', 'langchain', 'ai-sdk', 'openai', 'anthropic'])
      expect(await readFile(path.join(base, 'workspace', `${file}.md`), 'utf8')).toBe(
        'state: done\n',
      );
  }, 120_000);

  it('the AI SDK client answers the approval through elicitation when it declares it; decline runs nothing', async () => {
    const ai = await createMCPClient({
      transport: {
        type: 'http',
        url: served.url,
        headers: { authorization: `Bearer ${served.token}` },
      },
      capabilities: { elicitation: {} },
    });
    ai.onElicitationRequest(ElicitationRequestSchema, () => ({ action: 'decline' }));
    try {
      const tools = await ai.tools();
      const result = (await tools['edit_workspace_file']!.execute!(
        { path: 'notes.md', old_text: 'milk', new_text: 'beer' },
        { toolCallId: 'decline-1', messages: [] },
      )) as { content: unknown; isError?: boolean };
      expect(result.isError).toBe(true);
      expect(textJson(result.content)).toMatchObject({
        ok: false,
        error_type: 'approval_rejected',
      });
      expect(await readFile(path.join(base, 'workspace', 'notes.md'), 'utf8')).toBe('milk\neggs\n');
    } finally {
      await ai.close();
    }
  }, 60_000);
});
