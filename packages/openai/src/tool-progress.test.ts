import { createToolGateway, defineTool, type ToolProgressEvent } from '@ksadk/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolCalls } from './run-tool-calls.js';

describe('progress of long calls in the OpenAI runner', () => {
  it('reaches onProgress with the model call id; the tool output does not carry it', async () => {
    const job = defineTool({
      name: 'long_job',
      description: 'Works in steps.',
      input: z.object({}),
      execute: (_input, context) => {
        for (let step = 1; step <= 3; step += 1)
          context.reportProgress({ progress: step, total: 3 });
        return { ok: true };
      },
    });
    const events: ToolProgressEvent[] = [];
    const batch = await runToolCalls(
      [{ id: 'call_9', type: 'function', function: { name: 'long_job', arguments: '{}' } }],
      {
        tools: [job],
        gateway: createToolGateway({ env: {} }),
        onProgress: (event) => events.push(event),
      },
    );
    expect(events).toEqual(
      [1, 2, 3].map((progress) => ({
        toolName: 'long_job',
        callId: 'call_9',
        progress,
        total: 3,
        message: undefined,
      })),
    );
    expect(batch.toolMessages()[0]?.content).toBe('{"ok":true}');
  });
});
