import { createToolGateway, defineTool } from '@ksadk/core';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKsadkAgent } from './create-ksadk-agent.js';
import { ScriptedChatModel } from './testing/scripted-chat-model.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

describe('OpenTelemetry under LangGraph', () => {
  it('tool spans join the trace that is active when the host runs the graph', async () => {
    const lookup = defineTool({
      name: 'lookup_order',
      description: 'Looks up an order.',
      input: z.object({ id: z.string() }),
      execute: ({ id }) => ({ ok: true, id, status: 'shipped' }),
    });
    const { agent, close } = await createKsadkAgent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'lookup_order', args: { id: 'o-1' } }] },
        'Shipped.',
      ]),
      tools: [lookup],
      gateway: createToolGateway({ env: {} }),
      environment: false,
    });
    await trace.getTracer('host').startActiveSpan('POST /chat', async (request) => {
      await agent.invoke(
        { messages: [{ role: 'user', content: 'where is o-1?' }] },
        { configurable: { thread_id: 't-traced' } },
      );
      request.end();
    });
    await close();
    const spans = exporter.getFinishedSpans();
    const host = spans.find((span) => span.name === 'POST /chat');
    const ours = spans.find((span) => span.name === 'execute_tool lookup_order');
    expect(ours?.attributes).toMatchObject({
      'ksadk.outcome': 'ok',
      'gen_ai.tool.name': 'lookup_order',
    });
    expect(ours?.spanContext().traceId).toBe(host?.spanContext().traceId);
    expect(ours?.parentSpanContext?.spanId).toBe(host?.spanContext().spanId);
    // The model's tool call id is the span's call id.
    expect(String(ours?.attributes['gen_ai.tool.call.id'])).toMatch(/\S/);
  });
});
