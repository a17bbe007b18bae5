import { InMemoryRunner, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import type { Content } from '@google/genai';
import { createToolGateway } from '@ksadk/core';
import { createFailureTools, FAILURE_KINDS } from '@ksadk/core/testing';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

describe('one bad call never loses the turn (real ADK runner)', () => {
  it('every failure kind at every position: one function response per call, each side effect once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...FAILURE_KINDS), { minLength: 1, maxLength: 5 }),
        async (kinds) => {
          const failures = createFailureTools();
          const calls = kinds.map((kind, index) => ({
            name: failures.nameOf(kind),
            args: {},
            id: `call_${index}`,
          }));
          const agent = new LlmAgent({
            name: 'assistant',
            model: new ScriptedLlm([{ toolCalls: calls }, 'Done.']),
            tools: toAdkTools(failures.tools, {
              gateway: createToolGateway({ approvalMode: 'full', env: {} }),
            }),
          });
          const runner = new InMemoryRunner({ agent, appName: 'test' });
          const session = await runner.sessionService.createSession({
            appName: 'test',
            userId: 'u',
          });
          const responses: { id?: string; response?: Record<string, unknown> }[] = [];
          for await (const event of runner.runAsync({
            userId: 'u',
            sessionId: session.id,
            newMessage: { role: 'user', parts: [{ text: 'go' }] } satisfies Content,
          })) {
            for (const part of event.content?.parts ?? []) {
              if (part.functionResponse) responses.push(part.functionResponse);
            }
          }
          expect(responses.map((r) => r.id)).toEqual(calls.map((c) => c.id));
          for (const [index, response] of responses.entries()) {
            expect(response.response?.['ok'], kinds[index]).toBe(kinds[index] === 'ok');
          }
          expect(failures.ran.get('ok') ?? 0).toBe(kinds.filter((k) => k === 'ok').length);
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});
