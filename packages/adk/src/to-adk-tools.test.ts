import {
  BaseLlm,
  InMemoryRunner,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import { createToolGateway, defineJsonSchemaTool, defineTool } from '@ksadk/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toAdkTools } from './to-adk-tools.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

/** A model that answers from a script: each step sees the request and returns the reply. */
class ScriptedLlm extends BaseLlm {
  readonly requests: LlmRequest[] = [];
  constructor(private readonly steps: ((request: LlmRequest) => Content)[]) {
    super({ model: 'scripted' });
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(request);
    const step = this.steps.shift();
    if (!step) throw new Error('script exhausted');
    yield { content: step(request) };
  }
  async connect(): Promise<never> {
    throw new Error('live mode is not scripted');
  }
}

const call =
  (name: string, args: Record<string, unknown>, id = `call_${name}`) =>
  (): Content => ({
    role: 'model',
    parts: [{ functionCall: { id, name, args } }],
  });
const say = (text: string) => (): Content => ({ role: 'model', parts: [{ text }] });

function fixtures() {
  const writes: unknown[] = [];
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Save a note.',
    input: z.object({ title: z.string(), body: z.string(), tags: z.array(z.string()).optional() }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute: (input) => {
      writes.push(input);
      return { ok: true, saved: input.title };
    },
  });
  return { writes, writeNote, gateway: createToolGateway({ env: {} }) };
}

async function collect(iterable: AsyncIterable<{ content?: Content; author?: string }>) {
  const events: { content?: Content; author?: string }[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const functionCalls = (events: { content?: Content }[]): FunctionCall[] =>
  events.flatMap(
    (event) =>
      event.content?.parts?.flatMap((part) => (part.functionCall ? [part.functionCall] : [])) ?? [],
  );
const functionResponses = (events: { content?: Content }[]) =>
  events.flatMap(
    (event) =>
      event.content?.parts?.flatMap((part) =>
        part.functionResponse ? [part.functionResponse] : [],
      ) ?? [],
  );

async function startRun(
  steps: ((request: LlmRequest) => Content)[],
  approve: boolean | 'none',
  reason?: string,
) {
  const { writes, writeNote, gateway } = fixtures();
  const model = new ScriptedLlm(steps);
  const agent = new LlmAgent({
    name: 'assistant',
    model,
    tools: toAdkTools([writeNote], { gateway }),
  });
  const runner = new InMemoryRunner({ agent, appName: 'test' });
  const session = await runner.sessionService.createSession({ appName: 'test', userId: 'u1' });
  const first = await collect(
    runner.runAsync({
      userId: 'u1',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'save it' }] },
    }),
  );
  const confirmation = functionCalls(first).find(
    (fc) => fc.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  );
  if (approve === 'none') return { writes, first, confirmation, model };
  const second = await collect(
    runner.runAsync({
      userId: 'u1',
      sessionId: session.id,
      newMessage: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: confirmation!.id,
              name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
              response: { confirmed: approve, ...(reason ? { payload: { reason } } : {}) },
            },
          },
        ],
      },
    }),
  );
  return { writes, first, second, confirmation, model };
}

describe('toAdkTools', () => {
  it('declares tools with parametersJsonSchema, not ADK parameters', async () => {
    const { gateway, writeNote } = fixtures();
    const mcpStyle = defineJsonSchemaTool({
      name: 'lookup',
      description: 'Lookup.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          size: { type: 'integer', enum: [1, 2] },
          where: { $ref: '#/definitions/Place' },
        },
        required: ['where'],
        definitions: {
          Place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
      execute: () => ({ ok: true }),
    });
    const model = new ScriptedLlm([say('hi')]);
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      tools: toAdkTools([writeNote, mcpStyle], { gateway }),
    });
    const runner = new InMemoryRunner({ agent, appName: 'test' });
    await collect(
      runner.runEphemeral({ userId: 'u', newMessage: { role: 'user', parts: [{ text: 'hi' }] } }),
    );
    const declarations = model.requests[0]!.config?.tools?.flatMap((t) =>
      'functionDeclarations' in t ? (t.functionDeclarations ?? []) : [],
    );
    expect(declarations?.map((d) => d.name)).toEqual(['write_note', 'lookup']);
    for (const declaration of declarations ?? []) {
      expect(declaration.parameters).toBeUndefined();
      expect(declaration.parametersJsonSchema).toBeDefined();
    }
    expect(declarations?.[1]?.parametersJsonSchema).toEqual({
      type: 'object',
      properties: {
        size: { type: 'integer', enum: [1, 2], description: 'Allowed values: 1, 2' },
        where: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      required: ['where'],
    });
  });

  it('asks for confirmation, then runs the tool once when the host confirms', async () => {
    const { writes, first, second, confirmation } = await startRun(
      [
        call('write_note', { title: 't', body: 'b', approval: { approved: true } }),
        say('saved it'),
      ],
      true,
    );
    expect(confirmation?.args).toMatchObject({
      originalFunctionCall: { name: 'write_note', args: { title: 't', body: 'b' } },
      toolConfirmation: {
        confirmed: false,
        payload: {
          type: 'ksadk_approval',
          approval_request: {
            tool_name: 'write_note',
            risk_level: 'medium',
            arguments: { title: 't', body: 'b' },
          },
        },
      },
    });
    // ADK yields the confirmation request, not the gated call's interim response.
    expect(functionCalls(first).map((fc) => fc.name)).toEqual([
      'write_note',
      REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    ]);
    expect(writes).toEqual([{ title: 't', body: 'b' }]);
    expect(functionResponses(second!).at(-1)?.response).toEqual({ ok: true, saved: 't' });
    expect(second!.at(-1)?.content?.parts?.[0]?.text).toBe('saved it');
  });

  it('does not run before the decision', async () => {
    const { writes, confirmation } = await startRun(
      [call('write_note', { title: 't', body: 'b' })],
      'none',
    );
    expect(confirmation).toBeDefined();
    expect(writes).toHaveLength(0);
  });

  it('returns approval_rejected to the model when the host declines', async () => {
    const { writes, second, model } = await startRun(
      [call('write_note', { title: 't', body: 'b' }), say('understood')],
      false,
      'not today',
    );
    expect(writes).toHaveLength(0);
    expect(functionResponses(second!).at(-1)?.response).toMatchObject({
      ok: false,
      type: 'approval_rejected',
      reason: 'not today',
    });
    const lastRequest = model.requests.at(-1)!;
    expect(JSON.stringify(lastRequest.contents)).toContain('approval_rejected');
  });
});
