// A call whose steps are all synchronous makes few promises on its way through the gateway. These
// tests hold what that must not change: approval is never skipped, a call aborted right after
// invoke() does not run, the context's signal reads through a Proxy, and a broken tracer costs
// the call its span, never the call.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJsonSchemaTool, defineTool } from '../tool/define-tool.js';
import type { ToolExecutionContext } from '../tool/tool.js';
import { createToolGateway } from './create-tool-gateway.js';
import { isApprovalRequired } from './results.js';

const env = {} as NodeJS.ProcessEnv;
const NativePromise = globalThis.Promise;

afterEach(() => {
  globalThis.Promise = NativePromise;
});

function countingTool(runs: string[], riskLevel: 'low' | 'medium' = 'low') {
  return defineTool({
    name: 'count',
    description: 'Counts its runs.',
    input: z.object({ label: z.string() }),
    policy: { riskLevel },
    execute: ({ label }) => {
      runs.push(label);
      return { ok: true, label };
    },
  });
}

describe('a host that replaced the global Promise', () => {
  // Some hosts still install a promise library globally (bluebird, zone.js): the promises the
  // gateway's own async steps make are then not `instanceof Promise`.
  class HostPromise<T> extends NativePromise<T> {}

  it('still waits for the approval decision: the tool does not run', async () => {
    const runs: string[] = [];
    const gateway = createToolGateway({ env, approvalMode: 'risk' });
    globalThis.Promise = HostPromise as PromiseConstructor;
    const result = await gateway.invoke(countingTool(runs, 'medium'), { label: 'a' });
    globalThis.Promise = NativePromise;
    expect(isApprovalRequired(result)).toBe(true);
    expect(runs).toEqual([]);
  });

  it('still validates a JSON Schema tool (asynchronous validation) before running it', async () => {
    const runs: unknown[] = [];
    const tool = defineJsonSchemaTool({
      name: 'json_count',
      description: 'Counts.',
      inputSchema: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
        additionalProperties: false,
      },
      execute: (input) => {
        runs.push(input);
        return { ok: true };
      },
    });
    const gateway = createToolGateway({ env });
    globalThis.Promise = HostPromise as PromiseConstructor;
    const refused = await gateway.invoke(tool, { n: 'three' });
    const ran = await gateway.invoke(tool, { n: 3 });
    globalThis.Promise = NativePromise;
    expect(refused).toMatchObject({ ok: false, error_type: 'invalid_arguments' });
    expect(ran).toEqual({ ok: true });
    expect(runs).toEqual([{ n: 3 }]);
  });
});

describe('timing of the run', () => {
  it('a call aborted right after invoke() returns does not run, even a synchronous tool', async () => {
    const runs: string[] = [];
    const controller = new AbortController();
    const pending = createToolGateway({ env }).invoke(
      countingTool(runs),
      { label: 'late' },
      { signal: controller.signal },
    );
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error_type: 'tool_aborted' });
    expect(runs).toEqual([]);
  });

  it('runs a call that has a signal after invoke() has returned', async () => {
    const runs: string[] = [];
    const pending = createToolGateway({ env }).invoke(
      countingTool(runs),
      { label: 'a' },
      { signal: new AbortController().signal },
    );
    expect(runs).toEqual([]);
    await pending;
    expect(runs).toEqual(['a']);
  });
});

describe('the execution context', () => {
  it('reads signal through a Proxy, an Object.create child and destructuring; reportProgress works unbound', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'look',
      description: 'Looks at its context.',
      input: z.object({}),
      execute: async (_input, context: ToolExecutionContext) => {
        const proxied = new Proxy(context, {});
        const child = Object.create(context) as ToolExecutionContext;
        const { reportProgress, signal } = context;
        reportProgress({ progress: 1 });
        seen.push(
          proxied.signal instanceof AbortSignal,
          child.signal === context.signal,
          signal === context.signal,
        );
        return { ok: true };
      },
    });
    expect(await createToolGateway({ env }).invoke(tool, {})).toEqual({ ok: true });
    expect(seen).toEqual([true, true, true]);
  });
});

describe('a tracer provider that misbehaves', () => {
  it('costs the call its span, never the call', async () => {
    const reported: string[] = [];
    const broken = {
      getTracer: () => ({
        startSpan: () => ({ isRecording: () => false }),
      }),
    };
    const gateway = createToolGateway({
      env,
      tracing: { tracerProvider: broken },
      hooks: { onHookError: (_error, hook) => reported.push(hook) },
    });
    const runs: string[] = [];
    expect(await gateway.invoke(countingTool(runs), { label: 'a' })).toEqual({
      ok: true,
      label: 'a',
    });
    expect(runs).toEqual(['a']);
    expect(reported).toContain('tracing');
  });
});
