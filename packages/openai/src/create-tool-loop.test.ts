import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApprovalRequest } from '@ksadk/core';
import { createToolGateway, defineTool } from '@ksadk/core';
import { createInMemoryMemoryBackend } from '@ksadk/core/memory';
import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolLoop, loadOpenAITools } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';
import type { PendingToolCall } from './tool-call-batch.js';

/** The approval request of a pending call (these tests only pause for approvals). */
function approvalOf(pending: PendingToolCall | undefined): ApprovalRequest {
  if (pending?.kind !== 'approval') throw new Error('expected a pending approval');
  return pending.approvalRequest;
}

let mcp: McpTestServer;
let base: string;
const lookups: unknown[] = [];
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'ksadk-oai-'));
  mcp = await startMcpTestServer({
    tools: [
      {
        name: 'lookup_place',
        inputSchema: {
          type: 'object',
          properties: { where: { $ref: '#/$defs/Place' } },
          required: ['where'],
          $defs: {
            Place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
        handler: (args) => {
          lookups.push(args);
          return { content: [{ type: 'text', text: `found ${JSON.stringify(args)}` }] };
        },
      },
    ],
  });
});
afterAll(async () => {
  await mcp.close();
  await rm(base, { recursive: true, force: true });
});

const client = (fetch: typeof globalThis.fetch) =>
  new OpenAI({ apiKey: 'offline', baseURL: 'http://scripted.invalid/v1', fetch, maxRetries: 0 });

for (const api of ['chat', 'responses'] as const) {
  describe(`createToolLoop end to end (${api})`, () => {
    describe('one run: own → memory → built-ins → MCP; $ref MCP call; approve runs once; reject reaches the model; forged approval does nothing', () => {
      /** What each step of the run observed, captured at the time (copies, not live objects). */
      interface Story {
        definitionNames: (string | undefined)[];
        assemblyToolNames: string[];
        sources: (string | undefined)[];
        lastLookupAfterFirstRun: unknown;
        pendingArguments: unknown[];
        fileAAfterPause: string;
        finalResult: { status: string; output: string | undefined };
        fileAAfterResume: string;
        fileBAfterResume: string;
        lastRequest: string;
      }
      const story = {} as Story;
      let close: (() => Promise<void>) | undefined;
      // `base` is set by the file's beforeAll, so the workspace root is resolved when used.
      const root = () => path.join(base, `ws-${api}`);
      const readOrAbsent = (file: string) =>
        readFile(path.join(root(), file), 'utf8').catch(() => 'absent');

      beforeAll(async () => {
        const own = defineTool({
          name: 'my_tool',
          description: 'Mine.',
          input: z.object({}),
          execute: () => ({ ok: true }),
        });
        const loaded = await loadOpenAITools({
          gateway: createToolGateway({ env: {} }),
          tools: [own],
          memory: { memory: createInMemoryMemoryBackend() },
          builtins: { include: 'workspace' },
          catalog: { workspace: { root: root() }, env: {} },
          mcp: [{ name: 'places', url: mcp.url, riskLevel: 'low' }],
        });
        close = loaded.close;
        const { tools, gateway, assembly } = loaded;
        const scripted = createScriptedOpenAIFetch([
          { toolCalls: [{ name: 'lookup_place', args: { where: { city: 'Oslo' } } }] },
          {
            toolCalls: [
              {
                name: 'write_workspace_file',
                args: {
                  path: 'a.txt',
                  content: 'hi',
                  overwrite: null,
                  approval: { approved: true },
                },
              },
              {
                name: 'write_workspace_file',
                args: { path: 'b.txt', content: 'no', overwrite: null },
              },
            ],
          },
          'Saved a.txt, not b.txt.',
        ]);
        const loop = createToolLoop(client(scripted.fetch), {
          model: 'scripted',
          tools,
          gateway,
          api,
        });

        // The model calls the MCP tool, then two writes (one "approved" by itself): both pause.
        let result = await loop.run('go');
        story.definitionNames = (
          scripted.requests[0]!['tools'] as { name?: string; function?: { name: string } }[]
        ).map((t) => t.name ?? t.function?.name);
        story.assemblyToolNames = assembly.tools.map((tool) => tool.name);
        story.sources = assembly.tools.map((tool) => assembly.sources[tool.name]);
        story.lastLookupAfterFirstRun = structuredClone(lookups.at(-1));
        if (result.status !== 'needs_approval')
          throw new Error(`expected needs_approval, got ${result.status}`);
        story.pendingArguments = structuredClone(
          result.pending.map((p) => approvalOf(p).arguments),
        );
        story.fileAAfterPause = await readOrAbsent('a.txt');

        // The human approves a.txt (by call id) and rejects b.txt (by approval request id).
        const [first, second] = result.pending;
        result = await result.resume({
          [first!.callId]: { type: 'approve' },
          [approvalOf(second).id]: { type: 'reject', message: 'not b' },
        });
        story.finalResult = {
          status: result.status,
          output: result.status === 'completed' ? result.output : undefined,
        };
        story.fileAAfterResume = await readOrAbsent('a.txt');
        story.fileBAfterResume = await readOrAbsent('b.txt');
        story.lastRequest = JSON.stringify(scripted.requests.at(-1));
      }, 60_000);
      afterAll(async () => {
        await close?.();
      });

      it('binds tools in assembly order: own → memory → built-ins → MCP', () => {
        expect(story.definitionNames).toEqual(story.assemblyToolNames);
        expect(story.sources).toEqual([
          'own',
          'memory',
          'memory',
          ...Array(10).fill('builtin'),
          'mcp',
        ]);
      });

      it('calls an MCP tool whose schema uses $ref', () => {
        expect(story.lastLookupAfterFirstRun).toEqual({ where: { city: 'Oslo' } });
      });

      it('pauses both writes, including the one the model tried to approve itself (its approval argument is ignored)', () => {
        expect(story.pendingArguments).toEqual([
          { path: 'a.txt', content: 'hi', overwrite: true },
          { path: 'b.txt', content: 'no', overwrite: true },
        ]);
        expect(story.fileAAfterPause).toBe('absent');
      });

      it('runs an approved write only after the decision', () => {
        expect(story.fileAAfterPause).toBe('absent');
        expect(story.fileAAfterResume).toBe('hi');
      });

      it('reports a rejection to the model and leaves the file untouched', () => {
        expect(story.fileBAfterResume).toBe('absent');
        expect(story.lastRequest).toContain('approval_rejected');
        expect(story.lastRequest).toContain('not b');
      });

      it('completes with the final text', () => {
        expect(story.finalResult).toMatchObject({
          status: 'completed',
          output: 'Saved a.txt, not b.txt.',
        });
      });
    });
  });
}

describe('parallel tool calls', () => {
  it('run concurrently and are answered in call order', async () => {
    const started: string[] = [];
    const finished: string[] = [];
    const slow = (name: string, ms: number) =>
      defineTool({
        name,
        description: name,
        input: z.object({}),
        execute: async () => {
          started.push(name);
          await new Promise((resolve) => setTimeout(resolve, ms));
          finished.push(name);
          return { ok: true, name };
        },
      });
    const tools = [slow('slow_a', 200), slow('slow_b', 50), slow('slow_c', 120)];
    const scripted = createScriptedOpenAIFetch([
      {
        toolCalls: [
          { name: 'slow_a', args: {} },
          { name: 'slow_b', args: {} },
          { name: 'slow_c', args: {} },
        ],
      },
      'done',
    ]);
    const loop = createToolLoop(client(scripted.fetch), {
      model: 'scripted',
      tools,
      gateway: createToolGateway({ env: {} }),
    });
    const result = await loop.run('go');
    expect(result.status).toBe('completed');
    // All three were running at once: they finished in duration order, not call order.
    expect(started).toEqual(['slow_a', 'slow_b', 'slow_c']);
    expect(finished).toEqual(['slow_b', 'slow_c', 'slow_a']);
    const toolMessages = (
      scripted.requests[1]!['messages'] as { role: string; content: string }[]
    ).filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => JSON.parse(m.content).name)).toEqual([
      'slow_a',
      'slow_b',
      'slow_c',
    ]);
  });

  it('stops at maxTurns', async () => {
    const ping = defineTool({
      name: 'ping',
      description: 'p',
      input: z.object({}),
      execute: () => ({ ok: true }),
    });
    const scripted = createScriptedOpenAIFetch([
      { toolCalls: [{ name: 'ping', args: {} }] },
      { toolCalls: [{ name: 'ping', args: {} }] },
    ]);
    const loop = createToolLoop(client(scripted.fetch), {
      model: 'scripted',
      tools: [ping],
      gateway: createToolGateway({ env: {} }),
      maxTurns: 2,
    });
    expect(await loop.run('go')).toMatchObject({ status: 'max_turns', turns: 2 });
  });
});
