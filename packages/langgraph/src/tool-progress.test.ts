import { createToolGateway, defineTool } from '@ksadk/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKsadkAgent, type KsadkProgressEvent } from './index.js';
import { ScriptedChatModel } from './testing/scripted-chat-model.js';

describe('progress of long calls in LangGraph', () => {
  it("arrives as custom stream events (streamMode 'custom'), not in the model's messages", async () => {
    const job = defineTool({
      name: 'long_job',
      description: 'Works in steps.',
      input: z.object({}),
      execute: async (_input, context) => {
        for (let step = 1; step <= 3; step += 1) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          context.reportProgress({ progress: step, total: 3, message: `step ${step}` });
        }
        return { ok: true };
      },
    });
    const { agent, close } = await createKsadkAgent({
      model: new ScriptedChatModel([{ toolCalls: [{ name: 'long_job', args: {} }] }, 'Done.']),
      tools: [job],
      gateway: createToolGateway({ env: {} }),
      environment: false,
    });
    const custom: unknown[] = [];
    const stream = await agent.stream(
      { messages: [{ role: 'user', content: 'run it' }] },
      { configurable: { thread_id: 'progress' }, streamMode: ['custom', 'values'] },
    );
    let last: unknown;
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (mode === 'custom') custom.push(chunk);
      else last = chunk;
    }
    await close();
    expect(custom).toEqual(
      [1, 2, 3].map((progress) =>
        expect.objectContaining({
          type: 'ksadk_progress',
          toolName: 'long_job',
          progress,
          total: 3,
          message: `step ${progress}`,
        } satisfies Partial<KsadkProgressEvent>),
      ),
    );
    expect(JSON.stringify(last)).not.toContain('step 2');
  });
});
