import { createRequire } from 'node:module';
import { createToolGateway, type ToolProgressEvent } from '@ksadk/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createToolLoop, loadOpenAITools } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';

// The MCP project's reference server over stdio, under the OpenAI Responses tool loop.
const serverEntry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

describe('OpenAI with @modelcontextprotocol/server-everything (stdio)', () => {
  it('elicitation pends as an input call, the tiny image reaches the model as input_image, progress reaches onProgress', async () => {
    const load = await loadOpenAITools({
      mcp: [
        { name: 'everything', command: process.execPath, args: [serverEntry], timeoutMs: 30_000 },
      ],
      mcpClient: { elicitation: true },
      gateway: createToolGateway({ env: {}, approvalMode: 'full' }),
      environment: false,
    });
    try {
      const scripted = createScriptedOpenAIFetch([
        { toolCalls: [{ name: 'trigger-elicitation-request', args: {} }] },
        { toolCalls: [{ name: 'get-tiny-image', args: {} }] },
        {
          toolCalls: [{ name: 'trigger-long-running-operation', args: { duration: 1, steps: 2 } }],
        },
        'All done.',
      ]);
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
        tools: load.tools,
        gateway: load.gateway,
        onProgress: (event) => progress.push(event),
      });
      const first = await loop.run('try everything');
      if (first.status !== 'needs_approval')
        throw new Error(`expected a question, got ${first.status}`);
      const [question] = first.pending;
      expect(question).toMatchObject({ kind: 'input', inputRequest: { source: 'everything' } });
      const done = await first.resume({
        [question!.callId]: { action: 'accept', content: { name: 'Ada' } },
      });
      expect(done).toMatchObject({ status: 'completed', output: 'All done.' });
      const bodies = JSON.stringify(scripted.requests);
      expect(bodies).toContain('"type":"input_image"');
      expect(bodies).toContain('data:image/png;base64,');
      expect(bodies).toContain('Ada');
      expect(progress.map((event) => event.toolName)).toContain('trigger-long-running-operation');
    } finally {
      await load.close();
    }
  }, 60_000);
});
