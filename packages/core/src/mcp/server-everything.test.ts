import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import type { ToolProgressEvent } from '../gateway/run-with-timeout.js';
import { type McpServerProcess, startMcpServerProcess } from '../testing/mcp-server-process.js';
import type { HumanInputRequest } from '../tool/human-input.js';
import type { Tool } from '../tool/tool.js';
import { loadMcpToolsets, type McpLoadResult } from './load-mcp-toolsets.js';
import type { McpSamplingRequest } from './mcp-server-requests.js';

// The MCP project's own reference server, pinned: every tool it offers a client with every
// capability, over stdio and over Streamable HTTP.
const serverEntry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
let http: McpServerProcess | undefined;
beforeAll(async () => {
  http = await startMcpServerProcess({ script: serverEntry, args: ['streamableHttp'] });
}, 30_000);
afterAll(async () => {
  await http?.close();
});

const samples: McpSamplingRequest[] = [];
const questions: HumanInputRequest[] = [];
const progress: ToolProgressEvent[] = [];

async function load(transport: 'stdio' | 'http'): Promise<McpLoadResult> {
  const server =
    transport === 'stdio'
      ? { name: 'everything', command: process.execPath, args: [serverEntry], timeout_ms: 30_000 }
      : { name: 'everything', url: http!.url, timeout_ms: 30_000 };
  return loadMcpToolsets([server], {
    elicitation: true,
    sampler: async (request) => {
      samples.push(request);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'scripted sample' },
        model: 'scripted',
      };
    },
    trustedSamplingServers: ['everything'],
    roots: async () => [{ uri: 'file:///workspace/acme', name: 'workspace' }],
  });
}

/** Arguments that make each reference tool do its job offline. */
const ARGS: Record<string, Record<string, unknown>> = {
  echo: { message: 'hello' },
  'get-sum': { a: 2, b: 3 },
  'get-annotated-message': { messageType: 'success', includeImage: true },
  'get-resource-links': { count: 2 },
  'get-resource-reference': { resourceType: 'Text', resourceId: 1 },
  'get-structured-content': { location: 'New York' },
  'gzip-file-as-resource': {
    name: 'hello.gz',
    data: 'data:text/plain;base64,aGVsbG8=',
    outputType: 'resource',
  },
  'trigger-long-running-operation': { duration: 1, steps: 3 },
  'trigger-sampling-request': { prompt: 'Say hi', maxTokens: 50 },
  'trigger-elicitation-request': {},
};

for (const transport of ['stdio', 'http'] as const) {
  describe(`@modelcontextprotocol/server-everything over ${transport}`, () => {
    let loaded: McpLoadResult;
    beforeAll(async () => {
      loaded = await load(transport);
    }, 60_000);
    afterAll(async () => {
      await loaded?.close();
    });

    it('every tool it offers a client with every capability loads and answers', async () => {
      const names = loaded.tools.map((tool) => tool.originalName ?? tool.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'echo',
          'get-tiny-image',
          'trigger-elicitation-request',
          'trigger-sampling-request',
          'get-roots-list',
          'trigger-long-running-operation',
        ]),
      );
      const gateway = createToolGateway({ env: {}, approvalMode: 'full' });
      const failures: string[] = [];
      for (const tool of loaded.tools as Tool[]) {
        const original = tool.originalName ?? tool.name;
        // Timers that keep running after the test (they only start background notifications).
        if (original.startsWith('toggle-')) continue;
        const result = await gateway.invoke(tool, ARGS[original] ?? {}, {
          callId: `call-${original}`,
          askHuman: (request) => {
            questions.push(request);
            return { action: 'accept', content: { name: 'Ada' } };
          },
          onProgress: (event) => progress.push(event),
        });
        if (!result.ok)
          failures.push(
            `${original}: ${String(result['error_type'])} ${String(result['error_message'])}`,
          );
      }
      expect(failures).toEqual([]);
      // The one task-only tool is reported, not offered.
      expect(loaded.problems).toEqual([expect.stringContaining('simulate-research-query')]);
      expect(names).not.toContain('simulate-research-query');
    }, 90_000);

    it('the tiny image arrives as media, never as base64 text', async () => {
      const gateway = createToolGateway({ env: {}, approvalMode: 'full' });
      const tool = loaded.tools.find((t) => t.originalName === 'get-tiny-image')!;
      const result = await gateway.invoke(tool, {});
      expect(result['media']).toEqual([
        expect.objectContaining({
          type: 'image',
          mime_type: 'image/png',
          data: expect.stringMatching(/^iVBOR/),
        }),
      ]);
      expect(JSON.stringify(result['content'])).not.toMatch(/iVBOR/);
    });

    it('elicitation, sampling, roots and progress went through the host', () => {
      expect(questions.some((q) => q.source === 'everything' && q.type === 'ksadk_input')).toBe(
        true,
      );
      expect(samples.some((s) => s.maxTokens <= 50)).toBe(true);
      expect(progress.filter((event) => event.toolName.includes('long'))).not.toHaveLength(0);
    });

    it('resources and prompts are there for the host, not as model tools', async () => {
      const toolset = loaded.toolsets[0]!;
      const resources = await toolset.listResources();
      expect(resources.length).toBeGreaterThan(0);
      const read = await toolset.readResource(resources[0]!.uri);
      expect(read.contents.length).toBeGreaterThan(0);
      const prompts = await toolset.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('simple-prompt');
      const prompt = await toolset.getPrompt('simple-prompt');
      expect(prompt.messages.length).toBeGreaterThan(0);
    });
  });
}
