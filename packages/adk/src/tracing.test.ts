import { InMemoryRunner, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { createToolGateway, defineTool } from '@ksadk/core';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => {
  setLogLevel(LogLevel.ERROR);
  provider.register();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

describe('OpenTelemetry under ADK', () => {
  it("the gateway's execute_tool span nests under ADK's own execute_tool span", async () => {
    const lookup = defineTool({
      name: 'lookup_order',
      description: 'Looks up an order.',
      input: z.object({ id: z.string() }),
      execute: ({ id }) => ({ ok: true, id, status: 'shipped' }),
    });
    const gateway = createToolGateway({ env: {} });
    const agent = new LlmAgent({
      name: 'support',
      model: new ScriptedLlm([
        { toolCalls: [{ name: 'lookup_order', args: { id: 'o-1' } }] },
        'Shipped.',
      ]),
      tools: toAdkTools([lookup], { gateway }),
    });
    const runner = new InMemoryRunner({ agent, appName: 'traced' });
    for await (const _ of runner.runEphemeral({
      userId: 'u',
      newMessage: { role: 'user', parts: [{ text: 'where is o-1?' }] },
    })) {
      // drain
    }
    const spans = exporter.getFinishedSpans();
    const ours = spans.find(
      (span) =>
        span.name === 'execute_tool lookup_order' &&
        span.instrumentationScope.name === '@ksadk/core',
    );
    expect(ours?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'ksadk.approval': 'not_needed',
      'ksadk.outcome': 'ok',
    });
    const parent = spans.find(
      (span) => span.spanContext().spanId === ours?.parentSpanContext?.spanId,
    );
    expect(parent?.name).toBe('execute_tool lookup_order');
    expect(parent?.instrumentationScope.name).not.toBe('@ksadk/core');
    // The call id ADK gave the model's function call is the one on the span.
    expect(String(ours?.attributes['gen_ai.tool.call.id'])).not.toBe('');
  });
});
