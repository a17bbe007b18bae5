import { createRequire } from 'node:module';
import {
  InMemoryRunner,
  LlmAgent,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { Content } from '@google/genai';
import { createToolGateway, type ToolProgressEvent } from '@ksadk/core';
import { loadAgentTools } from '@ksadk/core/catalog';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

// The MCP project's reference server over stdio, under a real ADK runner.
const serverEntry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

async function turn(runner: InMemoryRunner, sessionId: string, message: Content) {
  const contents: Content[] = [];
  for await (const event of runner.runAsync({ userId: 'u', sessionId, newMessage: message }))
    if (event.content) contents.push(event.content);
  return contents;
}

describe('ADK with @modelcontextprotocol/server-everything (stdio)', () => {
  it('elicitation through a confirmation, the tiny image described, progress reaches onProgress', async () => {
    const load = await loadAgentTools({
      mcp: [
        { name: 'everything', command: process.execPath, args: [serverEntry], timeoutMs: 30_000 },
      ],
      mcpClient: { elicitation: true },
      gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
      environment: false,
    });
    try {
      const progress: ToolProgressEvent[] = [];
      const agent = new LlmAgent({
        name: 'tester',
        model: new ScriptedLlm([
          { toolCalls: [{ name: 'trigger-elicitation-request', args: {} }] },
          { toolCalls: [{ name: 'get-tiny-image', args: {} }] },
          {
            toolCalls: [
              { name: 'trigger-long-running-operation', args: { duration: 1, steps: 2 } },
            ],
          },
          'All done.',
        ]),
        tools: toAdkTools(load.tools, {
          gateway: load.gateway,
          onProgress: (event) => progress.push(event),
        }),
      });
      const runner = new InMemoryRunner({ agent, appName: 'everything' });
      const session = await runner.sessionService.createSession({
        appName: 'everything',
        userId: 'u',
      });
      const first = await turn(runner, session.id, {
        role: 'user',
        parts: [{ text: 'try everything' }],
      });
      const confirmation = first
        .flatMap((content) => content.parts ?? [])
        .map((part) => part.functionCall)
        .find((call) => call?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
      expect(confirmation?.args).toMatchObject({
        toolConfirmation: { payload: { type: 'ksadk_input', source: 'everything' } },
      });
      const rest = await turn(runner, session.id, {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: confirmation!.id!,
              name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
              response: {
                confirmed: true,
                payload: { action: 'accept', content: { name: 'Ada' } },
              },
            },
          },
        ],
      });
      const responses = rest
        .flatMap((content) => content.parts ?? [])
        .map((part) => part.functionResponse);
      const of = (name: string) =>
        JSON.stringify(responses.find((response) => response?.name === name)?.response);
      expect(of('trigger-elicitation-request')).toContain('Ada');
      expect(of('get-tiny-image')).toContain('image/png');
      expect(of('get-tiny-image')).not.toMatch(/iVBOR/);
      expect(progress.map((event) => event.toolName)).toContain('trigger-long-running-operation');
    } finally {
      await load.close();
    }
  }, 60_000);
});
