import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import { createToolGateway } from '@ksadk/core';
import { createInMemoryMemoryBackend } from '@ksadk/core/memory';
import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdkAgent } from './load-adk-agent.js';
import { ScriptedLlm } from './testing/scripted-llm.js';

let mcp: McpTestServer;
let base: string;
const lookups: unknown[] = [];
beforeAll(async () => {
  setLogLevel(LogLevel.ERROR);
  base = await mkdtemp(path.join(tmpdir(), 'ksadk-adk-'));
  mcp = await startMcpTestServer({
    stateful: true,
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

type Event = { content?: Content; author?: string };
async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}
const calls = (events: Event[]): FunctionCall[] =>
  events.flatMap(
    (e) => e.content?.parts?.flatMap((p) => (p.functionCall ? [p.functionCall] : [])) ?? [],
  );
const responses = (events: Event[]) =>
  events.flatMap(
    (e) => e.content?.parts?.flatMap((p) => (p.functionResponse ? [p.functionResponse] : [])) ?? [],
  );

describe('loadAdkAgent end to end (real ADK runner, scripted model)', () => {
  describe('one session: own → memory → built-ins → MCP; $ref MCP call; confirm runs once; decline returns approval_rejected; forged approval does nothing; sessions survive runs', () => {
    /** What each step of the session observed, captured at the time (copies, not live objects). */
    interface Story {
      warnings: string[];
      declaredNames: (string | undefined)[] | undefined;
      assemblyToolNames: string[];
      sources: (string | undefined)[];
      systemInstruction: string;
      lookupsAfterFirstRun: unknown[];
      firstGate: FunctionCall | undefined;
      fileAAfterGate: string;
      fileAAfterConfirm: string;
      confirmedWriteResponse: unknown;
      lookupsAfterSecondRun: unknown[];
      initializesAfterSecondRun: string[];
      declinedWriteResponse: unknown;
      fileBAfterDecline: string;
    }
    const story = {} as Story;
    let close: (() => Promise<void>) | undefined;
    const readOrAbsent = (file: string) =>
      readFile(path.join(base, 'ws', file), 'utf8').catch(() => 'absent');
    const writeResponse = (events: Event[]) =>
      structuredClone(responses(events).find((r) => r.name === 'write_workspace_file')?.response);
    const confirm = (callId: string, confirmed: boolean, reason?: string): Content => ({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: callId,
            name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
            response: { confirmed, ...(reason ? { payload: { reason } } : {}) },
          },
        },
      ],
    });

    beforeAll(async () => {
      const own = new FunctionTool({
        name: 'my_tool',
        description: 'Mine.',
        execute: async () => ({ ok: true }),
      });
      const model = new ScriptedLlm([
        { toolCalls: [{ name: 'lookup_place', args: { where: { city: 'Oslo' } } }] },
        {
          toolCalls: [
            {
              name: 'write_workspace_file',
              args: { path: 'a.txt', content: 'hi', approval: { approved: true } },
            },
          ],
        },
        'Saved a.txt.',
        { toolCalls: [{ name: 'lookup_place', args: { where: { city: 'Rome' } } }] },
        { toolCalls: [{ name: 'write_workspace_file', args: { path: 'b.txt', content: 'no' } }] },
        'Not saved.',
      ]);
      const agent = new LlmAgent({
        name: 'assistant',
        model,
        instruction: 'You help with {topic?}.',
        tools: [own],
      });
      const loaded = await loadAdkAgent(agent, {
        gateway: createToolGateway({ env: {} }),
        memory: { memory: createInMemoryMemoryBackend() },
        builtins: { include: 'workspace' },
        catalog: { workspace: { root: path.join(base, 'ws') }, env: {} },
        mcp: [{ name: 'places', url: mcp.url, riskLevel: 'low' }],
        skills: { tools: [], instructions: 'Skill manifest: {"name": "notes"}' },
      });
      close = loaded.close;
      const { assembly } = loaded;
      story.warnings = [...loaded.warnings];
      const runner = new InMemoryRunner({ agent, appName: 'e2e' });
      const session = await runner.sessionService.createSession({ appName: 'e2e', userId: 'u1' });
      const send = (message: Content) =>
        collect(runner.runAsync({ userId: 'u1', sessionId: session.id, newMessage: message }));

      // Run 1: the model calls the MCP tool, then a write it "approved" itself.
      const first = await send({ role: 'user', parts: [{ text: 'go' }] });
      const declared = model.requests[0]!.config?.tools?.flatMap((t) =>
        'functionDeclarations' in t ? (t.functionDeclarations ?? []) : [],
      );
      story.declaredNames = declared?.map((d) => d.name);
      story.assemblyToolNames = assembly.tools.map((tool) => tool.name);
      story.sources = assembly.tools.map((tool) => assembly.sources[tool.name]);
      story.systemInstruction = String(model.requests[0]!.config?.systemInstruction);
      story.lookupsAfterFirstRun = structuredClone(lookups);
      const gate = calls(first).find(
        (call) => call.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
      );
      story.firstGate = structuredClone(gate);
      story.fileAAfterGate = await readOrAbsent('a.txt');

      // The human confirms a.txt.
      const second = await send(confirm(gate!.id!, true));
      story.fileAAfterConfirm = await readOrAbsent('a.txt');
      story.confirmedWriteResponse = writeResponse(second);

      // Run 2 in the same session: the MCP session opened in the first run is reused.
      const third = await send({ role: 'user', parts: [{ text: 'again' }] });
      story.lookupsAfterSecondRun = structuredClone(lookups);
      story.initializesAfterSecondRun = mcp.methods.filter((method) => method === 'initialize');
      const gate2 = calls(third).find(
        (call) => call.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
      );

      // The human declines b.txt.
      const fourth = await send(confirm(gate2!.id!, false, 'not b'));
      story.declinedWriteResponse = writeResponse(fourth);
      story.fileBAfterDecline = await readOrAbsent('b.txt');
    }, 60_000);
    afterAll(async () => {
      await close?.();
    });

    it('loads without warnings', () => {
      expect(story.warnings).toEqual([]);
    });

    it("declares the agent's own tool, then the assembly in order: memory → built-ins → MCP", () => {
      expect(story.declaredNames).toEqual(['my_tool', ...story.assemblyToolNames]);
      expect(story.sources).toEqual(['memory', 'memory', ...Array(10).fill('builtin'), 'mcp']);
    });

    it('adds the skill instructions and keeps the agent instruction (optional placeholder emptied)', () => {
      expect(story.systemInstruction).toContain('Skill manifest: {"name": "notes"}');
      expect(story.systemInstruction).toContain('You help with .');
    });

    it('calls an MCP tool whose schema uses $ref', () => {
      expect(story.lookupsAfterFirstRun).toEqual([{ where: { city: 'Oslo' } }]);
    });

    it('asks to confirm a write the model tried to approve itself (its approval argument is ignored)', () => {
      expect(story.firstGate).toBeDefined();
      expect(story.fileAAfterGate).toBe('absent');
    });

    it('runs a confirmed write only after the confirmation and returns its result', () => {
      expect(story.fileAAfterGate).toBe('absent');
      expect(story.fileAAfterConfirm).toBe('hi');
      expect(story.confirmedWriteResponse).toMatchObject({ ok: true, path: 'a.txt' });
    });

    it('keeps the MCP session across runs of the same session', () => {
      expect(story.lookupsAfterSecondRun).toHaveLength(2);
      expect(story.initializesAfterSecondRun).toHaveLength(1);
    });

    it('returns approval_rejected for a declined write and leaves the file untouched', () => {
      expect(story.declinedWriteResponse).toMatchObject({
        ok: false,
        type: 'approval_rejected',
        reason: 'not b',
      });
      expect(story.fileBAfterDecline).toBe('absent');
    });
  });

  it("the agent's own tool name wins and the clash is reported", async () => {
    const mine = new FunctionTool({
      name: 'component_status',
      description: 'Mine.',
      execute: async () => ({ ok: true }),
    });
    const agent = new LlmAgent({ name: 'a', model: new ScriptedLlm([]), tools: [mine] });
    const { warnings, close } = await loadAdkAgent(agent, {
      builtins: { include: 'platform' },
      catalog: { workspace: false, env: {} },
    });
    await close();
    expect(agent.tools).toEqual([mine]);
    expect(warnings).toEqual([
      'component_status is left out: the agent already has a tool with that name',
    ]);
  });
});
