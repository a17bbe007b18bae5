import { createToolGateway, type HumanInputRequest, type ToolProgressEvent } from '@ksadk/core';
import type { McpSamplingRequest } from '@ksadk/core/mcp';
import { type McpServerProcess, startMcpServerProcess } from '@ksadk/core/testing';
import OpenAI from 'openai';
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
import { createToolLoop, loadOpenAITools, type ToolLoopResult } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';

// The MCP project's reference server, over stdio and over Streamable HTTP, under the OpenAI
// Responses tool loop: every tool it offers a client with every capability, called by the model.
const serverEntry = serverEverythingScript(import.meta.url);

let http: McpServerProcess;
beforeAll(async () => {
  http = await startMcpServerProcess({ script: serverEntry, args: ['streamableHttp'] });
}, 30_000);
afterAll(() => http?.close());

describe.each(['stdio', 'http'] as const)(
  'OpenAI with @modelcontextprotocol/server-everything over %s',
  (transport) => {
    it('the model calls every tool; elicitation and sampling pend as input calls, the image reaches it as input_image, progress reaches onProgress', async () => {
      const samples: McpSamplingRequest[] = [];
      const load = await loadOpenAITools({
        mcp: [serverEverythingEntry(transport, serverEntry, http.url)],
        mcpClient: everyCapability(samples),
        gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
        environment: false,
      });
      try {
        expect(load.tools.map((tool) => tool.name).sort()).toEqual(
          Object.keys(SERVER_EVERYTHING_CALLS).sort(),
        );
        const scripted = createScriptedOpenAIFetch([...callEveryTool()]);
        const client = new OpenAI({
          apiKey: 'offline',
          baseURL: 'http://scripted.invalid/v1',
          fetch: scripted.fetch,
          maxRetries: 0,
        });
        const progress: ToolProgressEvent[] = [];
        const loop = createToolLoop(client, {
          model: 'scripted',
          api: 'responses',
          maxTurns: 20,
          tools: load.tools,
          gateway: load.gateway,
          onProgress: (event) => progress.push(event),
        });
        const questions: HumanInputRequest[] = [];
        let result: ToolLoopResult = await loop.run('try everything');
        while (result.status === 'needs_approval') {
          const decisions: Record<string, unknown> = {};
          for (const pending of result.pending) {
            if (pending.kind !== 'input') throw new Error(`unexpected ${pending.kind}`);
            questions.push(pending.inputRequest);
            decisions[pending.callId] = answerAsHuman(pending.inputRequest);
          }
          result = await result.resume(decisions);
        }
        expect(result).toMatchObject({ status: 'completed', output: 'All done.' });

        // Every call answered ok, as the model saw it.
        const outputs = scripted.requests
          .slice(-1)
          .flatMap((request) => (request as { input?: unknown[] }).input ?? [])
          .filter(
            (item): item is { type: string; output: unknown } =>
              (item as { type?: string }).type === 'function_call_output',
          );
        const failed = outputs.map((item) => JSON.stringify(item.output)).filter(showsFailure);
        expect(failed).toEqual([]);
        const bodies = JSON.stringify(scripted.requests);
        expect(bodies).toContain('"type":"input_image"');
        expect(bodies).toContain('data:image/png;base64,');
        expect(bodies).toContain('Ada');
        expect(bodies).toContain('Hi!');
        expect(bodies).toContain('file:///workspace/acme');
        // One question for the elicitation, one for the (untrusted) sampling request.
        expect(questions.map((q) => q.source)).toEqual(['everything', 'everything']);
        expect(samples).toEqual([expect.objectContaining({ maxTokens: 20 })]);
        expect(progress.map((event) => event.toolName)).toContain('trigger-long-running-operation');
      } finally {
        await load.close();
      }
    }, 90_000);
  },
);
