// KsADK tools in the AI SDK's tool loop (generateText, streamText, ToolLoopAgent) with a scripted
// model: results, media, budgets, failures in a batch, progress, hostile names, the environment.
import {
  createToolGateway,
  defineTool,
  runWithInvocationContext,
  type ToolProgressEvent,
} from '@ksadk/core';
import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import * as ai from 'ai';
import { generateText, stepCountIs, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadAiSdkTools } from './load-ai-sdk-tools.js';
import { createScriptedLanguageModel } from './testing/scripted-language-model.js';
import { toAiSdkTools } from './to-ai-sdk-tools.js';

const env = {} as NodeJS.ProcessEnv;
const who = { accountId: 'acct-tools', userId: 'u', sessionId: 's' };
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up.',
  input: z.object({ word: z.string() }),
  execute: ({ word }) => ({ ok: true, word, meaning: `the meaning of ${word}` }),
});
const chart = defineTool({
  name: 'render_chart',
  description: 'Renders a chart.',
  input: z.object({}),
  execute: () => ({
    ok: true,
    text: 'a bar chart',
    media: [{ type: 'image', mime_type: 'image/png', data: png }],
  }),
});
const huge = defineTool({
  name: 'dump',
  description: 'Returns a lot.',
  input: z.object({}),
  execute: () => ({ ok: true, text: 'x'.repeat(5 * 1024 * 1024) }),
});
const broken = defineTool({
  name: 'broken',
  description: 'Always throws.',
  input: z.object({}),
  execute: () => {
    throw new Error('disk on fire');
  },
});

const prompts = (model: ReturnType<typeof createScriptedLanguageModel>) =>
  JSON.stringify(model.doGenerateCalls.map((call) => call.prompt));

describe('toAiSdkTools in the AI SDK tool loop', () => {
  it('runs a call through the gateway and hands its result to the model', async () => {
    const gateway = createToolGateway({ env });
    const model = createScriptedLanguageModel([
      { toolCalls: [{ name: 'lookup', args: { word: 'tool' } }] },
      'A tool is a thing.',
    ]);
    const result = await runWithInvocationContext(who, () =>
      generateText({
        model,
        tools: toAiSdkTools([lookup], { gateway }),
        prompt: 'What is a tool?',
        stopWhen: stepCountIs(3),
      }),
    );
    expect(result.text).toBe('A tool is a thing.');
    expect(prompts(model)).toContain('the meaning of tool');
    const records = await runWithInvocationContext(who, () => gateway.executions());
    expect(records.items.map((item) => [item.toolName, item.outcome])).toEqual([
      ['lookup', 'succeeded'],
    ]);
  });

  it('gives the model media as image parts, and budgets a 5 MB result', async () => {
    const gateway = createToolGateway({ env });
    const model = createScriptedLanguageModel([
      {
        toolCalls: [
          { name: 'render_chart', args: {} },
          { name: 'dump', args: {} },
        ],
      },
      'Done.',
    ]);
    await runWithInvocationContext(who, () =>
      generateText({
        model,
        tools: toAiSdkTools([chart, huge], { gateway }),
        prompt: 'chart and dump',
        stopWhen: stepCountIs(3),
      }),
    );
    const sent = model.doGenerateCalls[1]?.prompt ?? [];
    const toolParts = sent
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content as { type: string; output?: unknown }[]);
    const chartOutput = JSON.stringify(toolParts[0]?.output);
    expect(chartOutput).toContain('"type":"content"');
    expect(chartOutput).toContain(png);
    expect(chartOutput).toMatch(/"(image-data|media|file-data)"/);
    const dumpOutput = JSON.stringify(toolParts[1]?.output);
    expect(dumpOutput.length).toBeLessThan(200_000);
    expect(dumpOutput).toContain('tool-results://');
  });

  it('a batch with bad arguments, a throwing tool and an unknown tool gives one result per call', async () => {
    const gateway = createToolGateway({ env });
    const model = createScriptedLanguageModel([
      {
        toolCalls: [
          { name: 'lookup', args: { word: 7 } },
          { name: 'broken', args: {} },
          { name: 'lookup', args: '{"word":' },
          { name: 'lookup', args: { word: 'ok' } },
        ],
      },
      'Done.',
    ]);
    const result = await runWithInvocationContext(who, () =>
      generateText({
        model,
        tools: toAiSdkTools([lookup, broken], { gateway }),
        prompt: 'go',
        stopWhen: stepCountIs(3),
      }),
    );
    expect(result.text).toBe('Done.');
    const sent = prompts(model);
    expect(sent).toContain('invalid_arguments');
    expect(sent).toContain('disk on fire');
    expect(sent).toContain('the meaning of ok');
    const answered = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content);
    expect(answered).toHaveLength(4);
  });

  it('streams, reports progress with the call id, and works inside ToolLoopAgent', async () => {
    const gateway = createToolGateway({ env });
    const events: [ToolProgressEvent, string][] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'Reports progress.',
      input: z.object({}),
      execute: (_input, context) => {
        context.reportProgress?.({ progress: 1, total: 2, message: 'half' });
        return { ok: true, done: true };
      },
    });
    const tools = toAiSdkTools([slow], {
      gateway,
      onProgress: (event, toolCallId) => events.push([event, toolCallId]),
    });
    const text = await runWithInvocationContext(who, async () => {
      const stream = streamText({
        model: createScriptedLanguageModel([
          { toolCalls: [{ id: 'call_slow', name: 'slow', args: {} }] },
          'Finished.',
        ]),
        tools,
        prompt: 'go',
        stopWhen: stepCountIs(3),
      });
      return stream.text;
    });
    expect(text).toBe('Finished.');
    expect(events.map(([event, id]) => [event.message, id])).toEqual([['half', 'call_slow']]);
    const Agent = (ai as unknown as { ToolLoopAgent?: new (settings: object) => unknown })
      .ToolLoopAgent;
    expect(Agent).toBeDefined();
    const agent = new Agent!({
      model: createScriptedLanguageModel([
        { toolCalls: [{ name: 'slow', args: {} }] },
        'Agent done.',
      ]),
      tools,
    }) as { generate(options: { prompt: string }): Promise<{ text: string }> };
    const answer = await runWithInvocationContext(who, () => agent.generate({ prompt: 'go' }));
    expect(answer.text).toBe('Agent done.');
  });

  it('keys hostile names as data and refuses two tools of one name', () => {
    const gateway = createToolGateway({ env });
    const named = (name: string) =>
      defineTool({ name, description: name, input: z.object({}), execute: () => ({ ok: true }) });
    const set = toAiSdkTools([named('__proto__'), named('constructor')], { gateway });
    expect(Object.keys(set)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(set)).toBe(Object.prototype);
    expect(() => toAiSdkTools([lookup, lookup], { gateway })).toThrow(/Two tools are named lookup/);
    expect(() => toAiSdkTools([lookup], { gateway, onProgres: () => {} } as never)).toThrow(
      /onProgress/,
    );
  });
});

describe('loadAiSdkTools reads the environment like every adapter', () => {
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpTestServer({
      tools: [
        { name: 'env_lookup', inputSchema: { type: 'object' }, handler: () => ({ content: [] }) },
      ],
    });
  });
  afterAll(() => server.close());

  it('loads MCP servers from KSADK_MCP_SERVERS after the built-ins, as a ToolSet', async () => {
    const load = await loadAiSdkTools({
      env: { KSADK_MCP_SERVERS: JSON.stringify([{ name: 'env', url: server.url }]) },
      tools: [lookup],
    });
    try {
      const names = Object.keys(load.toolSet);
      expect(names[0]).toBe('lookup');
      expect(names).toContain('env_lookup');
      expect(names.at(-1)).toBe('env_lookup');
      expect(names).toEqual(load.tools.map((tool) => tool.name));
    } finally {
      await load.close();
    }
    await expect(loadAiSdkTools({ builtin: false } as never)).rejects.toThrow(/builtins/);
  });
});
