import { createRequire } from 'node:module';
import { createToolGateway } from '@ksadk/core';
import { Command, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { createKsadkAgent } from './create-ksadk-agent.js';
import { ScriptedChatModel } from './testing/scripted-chat-model.js';

// The MCP project's reference server over stdio, in a real LangGraph agent.
const serverEntry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

describe('LangGraph with @modelcontextprotocol/server-everything (stdio)', () => {
  it('elicitation through interrupt(), the tiny image as an image block, progress as custom events', async () => {
    const { agent, close } = await createKsadkAgent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'trigger-elicitation-request', args: {} }] },
        { toolCalls: [{ name: 'get-tiny-image', args: {} }] },
        {
          toolCalls: [{ name: 'trigger-long-running-operation', args: { duration: 1, steps: 2 } }],
        },
        'All done.',
      ]),
      mcp: [
        { name: 'everything', command: process.execPath, args: [serverEntry], timeoutMs: 30_000 },
      ],
      mcpClient: { elicitation: true },
      gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
      checkpointer: new MemorySaver(),
      environment: false,
    });
    try {
      const config = {
        configurable: { thread_id: 'everything' },
        streamMode: ['custom', 'values'] as const,
      };
      const run = async (input: unknown) => {
        const custom: unknown[] = [];
        let last: Record<string, unknown> = {};
        const stream = await agent.stream(input as never, config as never);
        for await (const [mode, chunk] of stream as AsyncIterable<
          [string, Record<string, unknown>]
        >) {
          if (mode === 'custom') custom.push(chunk);
          else last = chunk;
        }
        return { custom, last };
      };
      const first = await run({ messages: [{ role: 'user', content: 'try everything' }] });
      const interrupts =
        (first.last['__interrupt__'] as { value: Record<string, unknown> }[] | undefined) ?? [];
      expect(interrupts.map((i) => i.value)).toEqual([
        expect.objectContaining({
          type: 'ksadk_input',
          source: 'everything',
          tool_name: 'trigger-elicitation-request',
        }),
      ]);
      const second = await run(
        new Command({ resume: { action: 'accept', content: { name: 'Ada' } } }),
      );
      const messages = second.last['messages'] as { content: unknown; name?: string }[];
      const byTool = (name: string) => messages.find((message) => message.name === name)?.content;
      expect(JSON.stringify(byTool('trigger-elicitation-request'))).toContain('Ada');
      expect(byTool('get-tiny-image')).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: 'image', mimeType: 'image/png' })]),
      );
      expect(second.custom).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            type: 'ksadk_progress',
            toolName: 'trigger-long-running-operation',
          }),
        ]),
      );
      expect(messages.at(-1)?.content).toBe('All done.');
    } finally {
      await close();
    }
  }, 60_000);
});
