import {
  InMemoryRunner,
  LlmAgent,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import { createToolGateway, type HumanInputRequest, type ToolProgressEvent } from '@ksadk/core';
import { loadAgentTools } from '@ksadk/core/catalog';
import type { McpSamplingRequest } from '@ksadk/core/mcp';
import { type McpServerProcess, startMcpServerProcess } from '@ksadk/core/testing';
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
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

// The MCP project's reference server, over stdio and over Streamable HTTP, under a real ADK
// runner: every tool it offers a client with every capability, called by the model.
const serverEntry = serverEverythingScript(import.meta.url);

async function turn(runner: InMemoryRunner, sessionId: string, message: Content) {
  const contents: Content[] = [];
  for await (const event of runner.runAsync({ userId: 'u', sessionId, newMessage: message }))
    if (event.content) contents.push(event.content);
  return contents;
}

let http: McpServerProcess;
beforeAll(async () => {
  http = await startMcpServerProcess({ script: serverEntry, args: ['streamableHttp'] });
}, 30_000);
afterAll(() => http?.close());

describe.each(['stdio', 'http'] as const)(
  'ADK with @modelcontextprotocol/server-everything over %s',
  (transport) => {
    it('the model calls every tool; elicitation and sampling through confirmations, the image described, progress reaches onProgress', async () => {
      const samples: McpSamplingRequest[] = [];
      const load = await loadAgentTools({
        mcp: [serverEverythingEntry(transport, serverEntry, http.url)],
        mcpClient: everyCapability(samples),
        gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
        environment: false,
      });
      try {
        const progress: ToolProgressEvent[] = [];
        const agent = new LlmAgent({
          name: 'tester',
          model: new ScriptedLlm(callEveryTool()),
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
        const questions: HumanInputRequest[] = [];
        const responses: FunctionResponse[] = [];
        let contents = await turn(runner, session.id, {
          role: 'user',
          parts: [{ text: 'try everything' }],
        });
        for (;;) {
          const parts = contents.flatMap((content) => content.parts ?? []);
          for (const part of parts)
            if (part.functionResponse) responses.push(part.functionResponse);
          const confirmation = parts
            .map((part) => part.functionCall)
            .find((call) => call?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
          if (!confirmation) break;
          const request = (
            confirmation.args as { toolConfirmation: { payload: HumanInputRequest } }
          ).toolConfirmation.payload;
          questions.push(request);
          contents = await turn(runner, session.id, {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  id: confirmation.id!,
                  name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
                  response: { confirmed: true, payload: answerAsHuman(request) },
                },
              },
            ],
          });
        }
        expect(contents.at(-1)?.parts?.[0]?.text).toBe('All done.');
        // The last response of each tool (a paused call answers twice: paused, then done).
        const last = new Map(responses.map((response) => [response.name!, response.response]));
        expect([...last.keys()].sort()).toEqual(Object.keys(SERVER_EVERYTHING_CALLS).sort());
        const failed = [...last.entries()].filter(([, response]) => showsFailure(response));
        expect(failed).toEqual([]);
        const of = (name: string) => JSON.stringify(last.get(name));
        expect(of('trigger-elicitation-request')).toContain('Ada');
        expect(of('trigger-sampling-request')).toContain('Hi!');
        expect(of('get-roots-list')).toContain('file:///workspace/acme');
        expect(of('get-tiny-image')).toContain('image/png');
        expect(of('get-tiny-image')).not.toMatch(/iVBOR/);
        expect(of('get-tiny-image')).toMatch(/saved as tool-results:\/\/[^\]]+\.png/);
        expect(questions.map((q) => [q.type, q.source])).toEqual([
          ['ksadk_input', 'everything'],
          ['ksadk_input', 'everything'],
        ]);
        expect(samples).toEqual([expect.objectContaining({ maxTokens: 20 })]);
        expect(progress.map((event) => event.toolName)).toContain('trigger-long-running-operation');
      } finally {
        await load.close();
      }
    }, 90_000);
  },
);
