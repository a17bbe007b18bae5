import { InMemoryRunner, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { createToolGateway, defineTool, type ToolProgressEvent } from '@ksadk/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

describe('progress of long calls under ADK', () => {
  it("reaches toAdkTools' onProgress with ADK's function call id", async () => {
    const job = defineTool({
      name: 'long_job',
      description: 'Works in steps.',
      input: z.object({}),
      execute: (_input, context) => {
        for (let step = 1; step <= 2; step += 1) context.reportProgress({ progress: step });
        return { ok: true };
      },
    });
    const events: ToolProgressEvent[] = [];
    const agent = new LlmAgent({
      name: 'worker',
      model: new ScriptedLlm([{ toolCalls: [{ name: 'long_job', args: {} }] }, 'Done.']),
      tools: toAdkTools([job], {
        gateway: createToolGateway({ env: {} }),
        onProgress: (event) => events.push(event),
      }),
    });
    const runner = new InMemoryRunner({ agent, appName: 'progress' });
    let functionCallId: string | undefined;
    for await (const event of runner.runEphemeral({
      userId: 'u',
      newMessage: { role: 'user', parts: [{ text: 'go' }] },
    })) {
      functionCallId ??= event.content?.parts?.find((part) => part.functionCall)?.functionCall?.id;
    }
    expect(events.map((event) => event.progress)).toEqual([1, 2]);
    expect(events[0]?.callId).toBe(functionCallId);
  });
});
