import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { defineTool } from '../tool/define-tool.js';
import { createToolGateway } from './create-tool-gateway.js';
import { isApprovalRequired } from './results.js';

const env = {} as NodeJS.ProcessEnv;
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  provider.register();
});
afterEach(() => exporter.reset());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const SECRET = 'sk-live-0123456789abcdef';

const write = defineTool({
  name: 'write_note',
  description: 'Writes a note.',
  input: z.object({ text: z.string() }),
  policy: { riskLevel: 'high', sideEffects: ['workspace_write'] },
  execute: ({ text }) => {
    // A span the tool makes itself nests under the gateway's.
    trace.getTracer('tool').startActiveSpan('inside', (span) => span.end());
    return { ok: true, echoed: text };
  },
});
const broken = defineTool({
  name: 'broken',
  description: 'Always fails.',
  input: z.object({}),
  execute: () => {
    throw new Error('disk on fire');
  },
});

const spansNamed = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);

describe('OpenTelemetry spans of gateway calls', () => {
  it('follow the GenAI conventions and record the approval path, without arguments or results', async () => {
    const gateway = createToolGateway({ env, approvalMode: 'ask' });
    const args = { text: `remember ${SECRET}` };
    const first = await runWithInvocationContext({ invocationId: 'inv-7' }, () =>
      gateway.invoke(write, args, { callId: 'call_1' }),
    );
    if (!isApprovalRequired(first)) throw new Error('expected approval_required');
    const grant = await gateway.approve(first.approval_request.id);
    await gateway.invoke(write, args, { callId: 'call_1', approval: grant });

    const [asked, ran] = spansNamed('execute_tool write_note');
    expect(asked?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'write_note',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'ksadk.risk_level': 'high',
      'ksadk.tool.group': expect.any(String),
      'ksadk.invocation_id': 'inv-7',
      'ksadk.approval': 'required',
      'ksadk.outcome': 'approval_required',
      'error.type': 'approval_required',
    });
    expect(asked?.status.code).toBe(0); // a pause is not an error
    expect(ran?.attributes).toMatchObject({ 'ksadk.approval': 'approved', 'ksadk.outcome': 'ok' });
    expect(ran?.attributes['error.type']).toBeUndefined();
    // The span of the call that ran names its execution record; the paused one has none.
    const [record] = (
      await runWithInvocationContext({ invocationId: 'inv-7' }, () => gateway.executions())
    ).items;
    expect(ran?.attributes['ksadk.execution.id']).toBe(record?.id);
    expect(asked?.attributes['ksadk.execution.id']).toBeUndefined();
    const inside = spansNamed('inside')[0];
    expect(inside?.parentSpanContext?.spanId).toBe(ran?.spanContext().spanId);
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).not.toContain(
      'remember',
    );
  });

  it('nests under the span that is active when the framework calls the tool', async () => {
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    await trace.getTracer('framework').startActiveSpan('agent step', async (parent) => {
      await gateway.invoke(write, { text: 'x' }, { callId: 'c2' });
      parent.end();
    });
    const step = spansNamed('agent step')[0];
    const call = spansNamed('execute_tool write_note')[0];
    expect(call?.parentSpanContext?.spanId).toBe(step?.spanContext().spanId);
    expect(call?.spanContext().traceId).toBe(step?.spanContext().traceId);
  });

  it('marks failures with error.type and an error status; rejections as rejected', async () => {
    const full = createToolGateway({ env, approvalMode: 'full' });
    await full.invoke(broken, {}, { callId: 'c4' });
    const thrown = spansNamed('execute_tool broken')[0];
    expect(thrown?.attributes).toMatchObject({
      'ksadk.approval': 'not_needed',
      'ksadk.outcome': 'error',
      'error.type': 'tool_error',
    });
    expect(thrown?.status).toMatchObject({ code: 2, message: 'tool_error' });

    const gateway = createToolGateway({ env, approvalMode: 'ask' });
    const first = await gateway.invoke(write, { text: 'no' }, { callId: 'c5' });
    if (!isApprovalRequired(first)) throw new Error('expected approval_required');
    await gateway.reject(first.approval_request.id, { reason: 'no' });
    await gateway.invoke(write, { text: 'no' }, { callId: 'c5' });
    expect(spansNamed('execute_tool write_note').at(-1)?.attributes).toMatchObject({
      'ksadk.approval': 'rejected',
      'ksadk.outcome': 'approval_rejected',
    });
  });

  it('records arguments and results only when the host opts in, and then redacted', async () => {
    const gateway = createToolGateway({
      env: { MY_API_KEY: SECRET },
      approvalMode: 'full',
      tracing: { recordArguments: true, recordResults: true },
    });
    await gateway.invoke(write, { text: `key ${SECRET} ${'y'.repeat(20_000)}` }, { callId: 'c6' });
    const span = spansNamed('execute_tool write_note')[0];
    const argsText = String(span?.attributes['gen_ai.tool.call.arguments']);
    const resultText = String(span?.attributes['gen_ai.tool.call.result']);
    expect(argsText).toContain('key ');
    expect(resultText).toContain('"ok":true');
    for (const text of [argsText, resultText]) {
      expect(text).not.toContain(SECRET);
      expect(text.length).toBeLessThanOrEqual(8193);
    }
  });

  it('records media as its description, never its base64', async () => {
    const data = Buffer.alloc(3_000, 7).toString('base64');
    const shot = defineTool({
      name: 'screenshot',
      description: 'Takes a screenshot.',
      input: z.object({}),
      execute: () => ({ ok: true, media: [{ type: 'image', mime_type: 'image/png', data }] }),
    });
    const gateway = createToolGateway({
      env,
      approvalMode: 'full',
      tracing: { recordResults: true },
    });
    const result = await gateway.invoke(shot, {}, { callId: 'c7' });
    expect((result['media'] as { data: string }[])[0]?.data).toBe(data);
    const resultText = String(
      spansNamed('execute_tool screenshot')[0]?.attributes['gen_ai.tool.call.result'],
    );
    expect(resultText).toContain('image/png');
    expect(resultText).toContain('not shown to the model here');
    expect(resultText).not.toContain(data.slice(0, 40));
  });

  it('can be turned off, or pointed at another provider', async () => {
    const off = createToolGateway({ env, approvalMode: 'full', tracing: false });
    await off.invoke(write, { text: 'x' });
    expect(spansNamed('execute_tool write_note')).toHaveLength(0);

    const own = new InMemorySpanExporter();
    const other = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(own)] });
    const gateway = createToolGateway({
      env,
      approvalMode: 'full',
      tracing: { tracerProvider: other },
    });
    await gateway.invoke(write, { text: 'x' });
    expect(own.getFinishedSpans().map((s) => s.name)).toContain('execute_tool write_note');
    expect(() => createToolGateway({ env, tracing: { tracerProvider: {} as never } })).toThrowError(
      /getTracer/,
    );
    expect(() => createToolGateway({ env, tracing: { record: true } as never })).toThrowError(
      /record/,
    );
    await other.shutdown();
  });
});
