import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tool/define-tool.js';
import { createToolGateway } from './create-tool-gateway.js';
import type { ToolProgressEvent } from './run-with-timeout.js';

/** A tool that works `steps` × `stepMs` and reports each step. */
const slow = (steps: number, stepMs: number, resetTimeout: boolean) =>
  defineTool({
    name: 'slow_job',
    description: 'Works for a while.',
    input: z.object({}),
    execute: async (_input, context) => {
      for (let step = 1; step <= steps; step += 1) {
        await sleep(stepMs, undefined, { signal: context.signal });
        context.reportProgress({
          progress: step,
          total: steps,
          message: `step ${step}`,
          resetTimeout,
        });
      }
      return { ok: true, steps };
    },
  });

describe('progress of long calls', () => {
  it('reaches the caller, and restarts the timeout only when the tool asks for it', async () => {
    const gateway = createToolGateway({ env: {} });
    const events: ToolProgressEvent[] = [];
    // 8 steps of 100 ms = 800 ms, against a 400 ms timeout: only an idle timeout lets it finish.
    const kept = await gateway.invoke(
      slow(8, 100, true),
      {},
      {
        callId: 'c1',
        timeoutMs: 400,
        onProgress: (event) => events.push(event),
      },
    );
    expect(kept).toMatchObject({ ok: true, steps: 8 });
    expect(events.map((event) => event.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events[0]).toEqual({
      toolName: 'slow_job',
      callId: 'c1',
      progress: 1,
      total: 8,
      message: 'step 1',
    });

    const cut = await gateway.invoke(slow(8, 100, false), {}, { timeoutMs: 400 });
    expect(cut).toMatchObject({ ok: false, error_type: 'tool_timeout' });
  });

  it('caps a call that keeps reporting at ten times its timeout; a throwing listener changes nothing', async () => {
    const gateway = createToolGateway({ env: {} });
    const started = Date.now();
    const endless = await gateway.invoke(
      slow(1000, 20, true),
      {},
      {
        timeoutMs: 50,
        onProgress: () => {
          throw new Error('listener bug');
        },
      },
    );
    expect(endless).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });
});
