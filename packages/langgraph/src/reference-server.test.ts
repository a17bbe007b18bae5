import { createToolGateway, type HumanInputRequest } from '@ksadk/core';
import type { McpSamplingRequest } from '@ksadk/core/mcp';
import { type McpServerProcess, startMcpServerProcess } from '@ksadk/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerAsHuman,
  callEveryTool,
  everyCapability,
  SERVER_EVERYTHING_CALLS,
  serverEverythingEntry,
  serverEverythingScript,
  showsFailure,
} from '../../../test-support/server-everything.js';
import { createKsadkAgent } from './create-ksadk-agent.js';
import { ScriptedChatModel } from './testing/scripted-chat-model.js';

// The MCP project's reference server, over stdio and over Streamable HTTP, in a real LangGraph
// agent: every tool it offers a client with every capability, called by the model.
const serverEntry = serverEverythingScript(import.meta.url);

let http: McpServerProcess;
beforeAll(async () => {
  http = await startMcpServerProcess({ script: serverEntry, args: ['streamableHttp'] });
}, 30_000);
afterAll(() => http?.close());

describe.each(['stdio', 'http'] as const)(
  'LangGraph with @modelcontextprotocol/server-everything over %s',
  (transport) => {
    it('the model calls every tool; elicitation and sampling through interrupt(), the image as an image block, progress as custom events', async () => {
      const samples: McpSamplingRequest[] = [];
      const { agent, close } = await createKsadkAgent({
        model: new ScriptedChatModel([...callEveryTool()]),
        mcp: [serverEverythingEntry(transport, serverEntry, http.url)],
        mcpClient: everyCapability(samples),
        gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
        checkpointer: new MemorySaver(),
        environment: false,
      });
      try {
        const config = {
          configurable: { thread_id: `everything-${transport}` },
          streamMode: ['custom', 'values'] as const,
          recursionLimit: 100,
        };
        const custom: unknown[] = [];
        const run = async (input: unknown) => {
          let last: Record<string, unknown> = {};
          const stream = await agent.stream(input as never, config as never);
          for await (const [mode, chunk] of stream as AsyncIterable<
            [string, Record<string, unknown>]
          >) {
            if (mode === 'custom') custom.push(chunk);
            else last = chunk;
          }
          return last;
        };
        const questions: HumanInputRequest[] = [];
        let state = await run({ messages: [{ role: 'user', content: 'try everything' }] });
        for (;;) {
          const interrupts = (state['__interrupt__'] as { value: HumanInputRequest }[]) ?? [];
          if (interrupts.length === 0) break;
          expect(interrupts).toHaveLength(1);
          questions.push(interrupts[0]!.value);
          state = await run(new Command({ resume: answerAsHuman(interrupts[0]!.value) }));
        }
        const messages = state['messages'] as { content: unknown; name?: string }[];
        expect(messages.at(-1)?.content).toBe('All done.');
        const results = messages.filter((message) => 'tool_call_id' in message);
        expect(results.map((message) => message.name).sort()).toEqual(
          Object.keys(SERVER_EVERYTHING_CALLS).sort(),
        );
        const failed = results
          .map((message) => JSON.stringify(message.content))
          .filter(showsFailure);
        expect(failed).toEqual([]);
        const byTool = (name: string) => results.find((message) => message.name === name)?.content;
        expect(byTool('get-tiny-image')).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ type: 'image', mimeType: 'image/png' }),
          ]),
        );
        expect(JSON.stringify(byTool('trigger-elicitation-request'))).toContain('Ada');
        expect(JSON.stringify(byTool('trigger-sampling-request'))).toContain('Hi!');
        expect(JSON.stringify(byTool('get-roots-list'))).toContain('file:///workspace/acme');
        expect(questions.map((q) => [q.type, q.source])).toEqual([
          ['ksadk_input', 'everything'],
          ['ksadk_input', 'everything'],
        ]);
        expect(samples).toEqual([expect.objectContaining({ maxTokens: 20 })]);
        expect(custom).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              type: 'ksadk_progress',
              toolName: 'trigger-long-running-operation',
            }),
          ]),
        );
      } finally {
        await close();
      }
    }, 90_000);
  },
);
