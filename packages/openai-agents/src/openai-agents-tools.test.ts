// KsADK tools in the OpenAI Agents SDK's run loop (run, Runner, streamed runs) with a scripted
// model: results, media, budgets, failures in a batch, hostile arguments, progress, names, schemas,
// and the environment.
import {
  createToolGateway,
  defineTool,
  runWithInvocationContext,
  type ToolProgressEvent,
} from '@ksadk/core';
import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import { Agent, run } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approvalRequestOf } from './interruptions.js';
import { loadOpenAIAgentsTools } from './load-openai-agents-tools.js';
import { alice, noteTools, outputsOf, sentToModel } from './test-fixtures/test-support.js';
import { createScriptedModel } from './testing/scripted-model.js';
import { toOpenAIAgentsTools } from './to-openai-agents-tools.js';

const env = {} as NodeJS.ProcessEnv;
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up.',
  input: z.object({ word: z.string(), lang: z.string().optional() }),
  execute: ({ word, lang }) => ({ ok: true, word, lang: lang ?? 'absent', meaning: `of ${word}` }),
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

/** Runs one agent turn (then the model's answer) with `tools`, as alice. */
async function turn(
  tools: Parameters<typeof toOpenAIAgentsTools>[0],
  turns: Parameters<typeof createScriptedModel>[0],
  gateway = createToolGateway({ env }),
) {
  const model = createScriptedModel(turns);
  const agent = new Agent({ name: 'a', model, tools: toOpenAIAgentsTools(tools, { gateway }) });
  const result = await runWithInvocationContext(alice, () => run(agent, 'go'));
  return { result, model, gateway, agent };
}

describe('toOpenAIAgentsTools in the SDK run loop', () => {
  it('runs a call through the gateway and hands its result to the model, strict nulls as absent', async () => {
    const { result, model, gateway } = await turn(
      [lookup],
      [{ toolCalls: [{ id: 'c1', name: 'lookup', args: { word: 'tool', lang: null } }] }, 'Done.'],
    );
    expect(result.finalOutput).toBe('Done.');
    expect(sentToModel(model)['c1']).toContain('of tool');
    expect(sentToModel(model)['c1']).toContain('\\"lang\\":\\"absent\\"');
    const records = await runWithInvocationContext(alice, () => gateway.executions());
    expect(records.items.map((item) => [item.toolName, item.outcome])).toEqual([
      ['lookup', 'succeeded'],
    ]);
    // The SDK sends core's strict schema: every property required, optional ones nullable.
    const [sent] = model.requests[0]!.tools;
    expect(sent).toMatchObject({ name: 'lookup', strict: true });
    expect((sent as { parameters: { required: string[] } }).parameters.required).toEqual([
      'word',
      'lang',
    ]);
  });

  it('gives the model images as the SDK’s image outputs, and budgets a 5 MB result', async () => {
    const { model } = await turn(
      [chart, huge],
      [
        {
          toolCalls: [
            { id: 'c_chart', name: 'render_chart', args: {} },
            { id: 'c_dump', name: 'dump', args: {} },
          ],
        },
        'Done.',
      ],
    );
    const sent = sentToModel(model);
    expect(sent['c_chart']).toContain('"type":"input_image"');
    expect(sent['c_chart']).toContain(png);
    expect(sent['c_chart']).toContain('a bar chart');
    expect(sent['c_dump']!.length).toBeLessThan(200_000);
    expect(sent['c_dump']).toContain('tool-results://');
  });

  it('one result per call in a batch whatever fails; unreadable arguments pause with no request', async () => {
    const { result, model } = await turn(
      [lookup, broken],
      [
        {
          toolCalls: [
            { id: 'c_bad', name: 'lookup', args: { word: 7 } },
            { id: 'c_throw', name: 'broken', args: {} },
            { id: 'c_json', name: 'lookup', args: '{"word":' },
            { id: 'c_ok', name: 'lookup', args: { word: 'ok' } },
          ],
        },
        'Done.',
      ],
    );
    const outputs = outputsOf(result.newItems);
    expect(outputs['c_bad']).toContain('invalid_arguments');
    expect(outputs['c_throw']).toContain('disk on fire');
    expect(outputs['c_ok']).toContain('of ok');
    // The SDK pauses a call whose arguments it cannot read; KsADK asked nothing, nothing can run.
    expect(result.interruptions.map((item) => item.rawItem)).toMatchObject([{ callId: 'c_json' }]);
    const [item] = result.interruptions;
    expect(await runWithInvocationContext(alice, () => approvalRequestOf(item!))).toBeUndefined();
    result.state.reject(item!, { message: 'Its arguments could not be read.' });
    const done = await runWithInvocationContext(alice, () =>
      run(result.state.currentAgent, result.state),
    );
    expect(done.finalOutput).toBe('Done.');
    expect(Object.keys(sentToModel(model)).sort()).toEqual(['c_bad', 'c_json', 'c_ok', 'c_throw']);
  });

  it('refuses hostile arguments: __proto__, 5 MB of them, a non-object', {
    timeout: 30_000,
  }, async () => {
    const runs: unknown[] = [];
    const [writeNote] = noteTools(runs);
    const { result, model } = await turn(
      [writeNote!],
      [
        {
          toolCalls: [
            {
              id: 'c_proto',
              name: 'write_note',
              args: '{"title":"a","text":"b","__proto__":{"polluted":true}}',
            },
            {
              id: 'c_huge',
              name: 'write_note',
              args: { title: 'a', text: 'y'.repeat(5 * 1024 * 1024) },
            },
            { id: 'c_array', name: 'write_note', args: '[1,2]' },
          ],
        },
        'Done.',
      ],
    );
    expect(runs).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const outputs = outputsOf(result.newItems);
    expect(outputs['c_proto']).toContain('invalid_arguments');
    expect(outputs['c_huge']).toContain('invalid_arguments');
    expect(result.interruptions.map((item) => item.rawItem)).toMatchObject([{ callId: 'c_array' }]);
    expect(model.requests).toHaveLength(1);
  });

  it('streams, and reports progress with the call id', async () => {
    const gateway = createToolGateway({ env });
    const events: [string | undefined, string][] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'Reports progress.',
      input: z.object({}),
      execute: (_input, context) => {
        context.reportProgress?.({ progress: 1, total: 2, message: 'half' });
        return { ok: true, done: true };
      },
    });
    const tools = toOpenAIAgentsTools([slow], {
      gateway,
      onProgress: (event: ToolProgressEvent, toolCallId) =>
        events.push([event.message, toolCallId]),
    });
    const model = createScriptedModel([
      { toolCalls: [{ id: 'call_slow', name: 'slow', args: {} }] },
      'Finished.',
    ]);
    const agent = new Agent({ name: 'a', model, tools });
    const text = await runWithInvocationContext(alice, async () => {
      const stream = await run(agent, 'go', { stream: true });
      const deltas: string[] = [];
      for await (const event of stream.toTextStream()) deltas.push(event);
      await stream.completed;
      return deltas.join('');
    });
    expect(text).toBe('Finished.');
    expect(events).toEqual([['half', 'call_slow']]);
  });

  it('refuses two tools of one name, also as the SDK renames them, and unknown options', () => {
    const gateway = createToolGateway({ env });
    const named = (name: string) =>
      defineTool({ name, description: name, input: z.object({}), execute: () => ({ ok: true }) });
    expect(
      toOpenAIAgentsTools([named('__proto__'), named('constructor')], { gateway }),
    ).toHaveLength(2);
    expect(() => toOpenAIAgentsTools([lookup, lookup], { gateway })).toThrow(
      /Two tools are named lookup/,
    );
    expect(() =>
      toOpenAIAgentsTools([named('read-file'), named('read_file')], { gateway }),
    ).toThrow(/Two tools are named read_file/);
    expect(() => toOpenAIAgentsTools([lookup], { gateway, onProgres: () => {} } as never)).toThrow(
      /onProgress/,
    );
  });

  it('sends a schema that cannot be strict without loss as non-strict, and validates in the gateway', async () => {
    const open = defineTool({
      name: 'tag',
      description: 'Tags things.',
      input: z.object({ tags: z.record(z.string(), z.string()) }),
      execute: ({ tags }) => ({ ok: true, count: Object.keys(tags).length }),
    });
    const { model } = await turn(
      [open],
      [{ toolCalls: [{ id: 'c_tag', name: 'tag', args: { tags: { a: 'b' } } }] }, 'ok'],
    );
    expect(model.requests[0]!.tools[0]).toMatchObject({ name: 'tag', strict: false });
    expect(sentToModel(model)['c_tag']).toContain('\\"count\\":1');
  });
});

describe('loadOpenAIAgentsTools reads the environment like every adapter', () => {
  let mcp: McpTestServer;
  const calls: unknown[] = [];
  beforeAll(async () => {
    mcp = await startMcpTestServer({
      tools: [
        {
          name: 'env_lookup',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
          handler: (args) => {
            calls.push(args);
            return { content: [{ type: 'text', text: 'found it' }] };
          },
        },
      ],
    });
  });
  afterAll(() => mcp.close());

  it('loads MCP servers from KSADK_MCP_SERVERS after the built-ins, guarded like every tool', async () => {
    const load = await loadOpenAIAgentsTools({
      env: { KSADK_MCP_SERVERS: JSON.stringify([{ name: 'env', url: mcp.url }]) },
      tools: [lookup],
    });
    try {
      const names = load.agentTools.map((tool) => tool.name);
      expect(names[0]).toBe('lookup');
      expect(names.at(-1)).toBe('env_lookup');
      expect(names).toEqual(load.tools.map((tool) => tool.name));
      const model = createScriptedModel([
        { toolCalls: [{ id: 'c_mcp', name: 'env_lookup', args: { q: 'x' } }] },
        'Found.',
      ]);
      const agent = new Agent({ name: 'a', model, tools: load.agentTools });
      await runWithInvocationContext(alice, async () => {
        // An MCP tool is medium risk by default: it pauses for approval like any other.
        const first = await run(agent, 'look');
        expect(calls).toEqual([]);
        const pause = await approvalRequestOf(first.interruptions[0]!);
        expect(pause?.approval_request.tool_name).toBe('env_lookup');
        first.state.approve(first.interruptions[0]!);
        await run(agent, first.state);
      });
      expect(calls).toEqual([{ q: 'x' }]);
      expect(sentToModel(model)['c_mcp']).toContain('found it');
    } finally {
      await load.close();
    }
    await expect(loadOpenAIAgentsTools({ builtin: false } as never)).rejects.toThrow(/builtins/);
  });
});
