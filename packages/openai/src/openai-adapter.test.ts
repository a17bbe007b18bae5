import type { ApprovalRequest } from '@ksadk/core';
import { createToolGateway, defineTool } from '@ksadk/core';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolCalls } from './run-tool-calls.js';
import { toOpenAITools } from './to-openai-tools.js';
import type { PendingToolCall } from './tool-call-batch.js';

/** The approval request of a pending call (these tests only pause for approvals). */
function approvalOf(pending: PendingToolCall | undefined): ApprovalRequest {
  if (pending?.kind !== 'approval') throw new Error('expected a pending approval');
  return pending.approvalRequest;
}

/** An OpenAI client whose HTTP layer is a script: each request gets the next canned body. */
function scriptedClient(bodies: unknown[]) {
  const requests: { url: string; body: Record<string, unknown> }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    requests.push({ url: String(url), body: JSON.parse(String(init?.body)) });
    const body = bodies.shift();
    if (body === undefined)
      return new Response('{"error":{"message":"script exhausted"}}', { status: 500 });
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  };
  return {
    client: new OpenAI({ apiKey: 'test', baseURL: 'http://model.test/v1', fetch, maxRetries: 0 }),
    requests,
  };
}

const chatReply = (message: Record<string, unknown>) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'scripted',
  choices: [
    {
      index: 0,
      finish_reason: message['tool_calls'] ? 'tool_calls' : 'stop',
      logprobs: null,
      message: { role: 'assistant', content: null, refusal: null, ...message },
    },
  ],
});

function fixtures() {
  const writes: unknown[] = [];
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Save a note.',
    input: z.object({ title: z.string(), body: z.string(), pinned: z.boolean().default(false) }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute: (input) => {
      writes.push(input);
      return { ok: true, saved: input.title };
    },
  });
  const readNote = defineTool({
    name: 'read_note',
    description: 'Read a note.',
    input: z.object({ title: z.string() }),
    execute: async ({ title }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { ok: true, title, body: 'hello' };
    },
  });
  const labels = defineTool({
    name: 'set_labels',
    description: 'Set labels.',
    input: z.object({ labels: z.record(z.string(), z.string()) }),
    execute: ({ labels: l }) => ({ ok: true, count: Object.keys(l).length }),
  });
  return { writes, writeNote, readNote, labels, gateway: createToolGateway({ env: {} }) };
}

describe('toOpenAITools', () => {
  it('emits strict Chat Completions and Responses definitions where lossless', () => {
    const { writeNote, labels } = fixtures();
    const [chat, chatLabels] = toOpenAITools([writeNote, labels], { api: 'chat' });
    expect(chat).toEqual({
      type: 'function',
      function: {
        name: 'write_note',
        description: 'Save a note.',
        strict: true,
        parameters: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            body: { type: 'string' },
            // OpenAI's guide does not list `default`: it is said in the description.
            pinned: { type: ['boolean', 'null'], description: 'Default: false.' },
          },
          required: ['title', 'body', 'pinned'],
          additionalProperties: false,
        },
      },
    });
    expect(chatLabels?.function.strict).toBe(false);
    const [responses] = toOpenAITools([writeNote], { api: 'responses' });
    expect(responses).toMatchObject({
      type: 'function',
      name: 'write_note',
      strict: true,
      parameters: chat!.function.parameters,
    });
    const [loose] = toOpenAITools([writeNote], { api: 'responses', strict: false });
    expect(loose?.strict).toBe(false);
  });
});

describe('runToolCalls with the openai client', () => {
  it('Chat Completions: runs calls concurrently in order, pauses the gated one until the host approves', async () => {
    const { writes, writeNote, readNote, gateway } = fixtures();
    const tools = [readNote, writeNote];
    const { client, requests } = scriptedClient([
      chatReply({
        tool_calls: [
          {
            id: 'call_read',
            type: 'function',
            function: { name: 'read_note', arguments: '{"title":"a"}' },
          },
          {
            id: 'call_write',
            type: 'function',
            function: {
              name: 'write_note',
              arguments: '{"title":"b","body":"x","pinned":null,"approval":{"approved":true}}',
            },
          },
        ],
      }),
      chatReply({ content: 'Saved b.' }),
    ]);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'read a, save b' }];
    const first = await client.chat.completions.create({
      model: 'scripted',
      messages,
      tools: toOpenAITools(tools, { api: 'chat' }),
    });
    const message = first.choices[0]!.message;
    let batch = await runToolCalls(message.tool_calls ?? [], { tools, gateway });
    expect(batch.done).toBe(false);
    expect(writes).toHaveLength(0);
    expect(batch.pending).toEqual([
      expect.objectContaining({
        callId: 'call_write',
        toolName: 'write_note',
        approvalRequest: expect.objectContaining({
          arguments: { title: 'b', body: 'x', pinned: false },
        }),
      }),
    ]);
    expect(batch.toolMessages().map((m) => m.tool_call_id)).toEqual(['call_read']);
    batch = await batch.resume({ call_write: { type: 'approve' } });
    expect(batch.done).toBe(true);
    expect(writes).toEqual([{ title: 'b', body: 'x', pinned: false }]);
    messages.push(message, ...batch.toolMessages());
    const second = await client.chat.completions.create({
      model: 'scripted',
      messages,
      tools: toOpenAITools(tools, { api: 'chat' }),
    });
    expect(second.choices[0]!.message.content).toBe('Saved b.');
    const sent = requests[1]!.body['messages'] as {
      role: string;
      tool_call_id?: string;
      content?: string;
    }[];
    expect(
      sent.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, JSON.parse(m.content!)]),
    ).toEqual([
      ['call_read', { ok: true, title: 'a', body: 'hello' }],
      ['call_write', { ok: true, saved: 'b' }],
    ]);
    expect(
      (requests[0]!.body['tools'] as { function: { strict: boolean } }[])[1]!.function.strict,
    ).toBe(true);
  });

  it('Responses: function_call items in, function_call_output items out; rejection reaches the model', async () => {
    const { writes, writeNote, gateway } = fixtures();
    const tools = [writeNote];
    const { client, requests } = scriptedClient([
      {
        id: 'resp_1',
        object: 'response',
        created_at: 0,
        model: 'scripted',
        status: 'completed',
        output: [
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'call_1',
            name: 'write_note',
            arguments: '{"title":"t","body":"b","pinned":true}',
            status: 'completed',
          },
        ],
      },
      {
        id: 'resp_2',
        object: 'response',
        created_at: 0,
        model: 'scripted',
        status: 'completed',
        output: [
          {
            type: 'message',
            id: 'm1',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Not saved.', annotations: [] }],
          },
        ],
      },
    ]);
    const input: ResponseInputItem[] = [{ role: 'user', content: 'save t' }];
    const first = await client.responses.create({
      model: 'scripted',
      input,
      tools: toOpenAITools(tools, { api: 'responses' }),
    });
    const calls = first.output.filter((item) => item.type === 'function_call');
    let batch = await runToolCalls(calls, { tools, gateway });
    expect(batch.pending).toHaveLength(1);
    batch = await batch.resume({
      [approvalOf(batch.pending[0]).id]: { type: 'reject', message: 'no notes today' },
    });
    expect(writes).toHaveLength(0);
    const outputs = batch.functionCallOutputs();
    expect(outputs).toHaveLength(1);
    expect(JSON.parse(outputs[0]!.output as string)).toMatchObject({
      type: 'approval_rejected',
      reason: 'no notes today',
    });
    input.push(...calls, ...outputs);
    const second = await client.responses.create({
      model: 'scripted',
      input,
      tools: toOpenAITools(tools, { api: 'responses' }),
    });
    expect(second.output_text).toBe('Not saved.');
    expect(JSON.stringify(requests[1]!.body['input'])).toContain('function_call_output');
  });

  it('answers unknown tools and bad JSON with structured errors', async () => {
    const { readNote, gateway } = fixtures();
    const batch = await runToolCalls(
      [
        { id: 'c1', type: 'function', function: { name: 'nope', arguments: '{}' } },
        { id: 'c2', type: 'function', function: { name: 'read_note', arguments: '{"title":' } },
        { id: 'c3', type: 'function', function: { name: 'read_note', arguments: '' } },
      ],
      { tools: [readNote], gateway },
    );
    expect(batch.calls.map((c) => c.result['error_type'])).toEqual([
      'unknown_tool',
      'invalid_arguments',
      'invalid_arguments',
    ]);
    expect(batch.done).toBe(true);
  });

  it('leaves undecided calls pending and ignores decisions for other calls', async () => {
    const { writes, writeNote, gateway } = fixtures();
    const calls = [
      {
        id: 'w1',
        type: 'function' as const,
        function: { name: 'write_note', arguments: '{"title":"1","body":"x","pinned":null}' },
      },
      {
        id: 'w2',
        type: 'function' as const,
        function: { name: 'write_note', arguments: '{"title":"2","body":"x","pinned":null}' },
      },
    ];
    let batch = await runToolCalls(calls, { tools: [writeNote], gateway });
    batch = await batch.resume({ w2: 'approve', unrelated: 'approve' });
    expect(batch.pending.map((p) => p.callId)).toEqual(['w1']);
    expect(writes).toEqual([{ title: '2', body: 'x', pinned: false }]);
    batch = await batch.resume({ w1: true });
    expect(batch.done).toBe(true);
    expect(batch.toolMessages().map((m) => m.tool_call_id)).toEqual(['w1', 'w2']);
  });
});
