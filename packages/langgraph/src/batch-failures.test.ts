import { createToolGateway } from '@ksadk/core';
import { createFailureTools, FAILURE_KINDS } from '@ksadk/core/testing';
import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKsadkAgent } from './create-ksadk-agent.js';
import { ScriptedChatModel } from './testing/scripted-chat-model.js';

describe('one bad call never loses the step (real LangGraph agent)', () => {
  it('every failure kind at every position: one tool message per call, each side effect once', async () => {
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
          const model = new ScriptedChatModel([{ toolCalls: calls }, 'Done.']);
          const { agent } = await createKsadkAgent({
            model,
            tools: failures.tools,
            gateway: createToolGateway({ approvalMode: 'full', env: {} }),
            builtins: false,
          });
          const state = await agent.invoke(
            { messages: [{ role: 'user', content: 'go' }] },
            { configurable: { thread_id: `t-${kinds.join('-')}` } },
          );
          const all: BaseMessage[] = state.messages;
          const messages = all.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
          expect(messages.map((m: ToolMessage) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
          for (const [index, message] of messages.entries()) {
            const result = JSON.parse(String(message.content)) as { ok: boolean };
            expect(result.ok, kinds[index]).toBe(kinds[index] === 'ok');
          }
          expect(failures.ran.get('ok') ?? 0).toBe(kinds.filter((k) => k === 'ok').length);
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});
