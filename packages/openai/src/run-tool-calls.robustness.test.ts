import {
  type ApprovalStore,
  createInMemoryApprovalStore,
  createToolGateway,
  defineTool,
} from '@ksadk/core';
import { createFailureTools, FAILURE_KINDS } from '@ksadk/core/testing';
import fc from 'fast-check';
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolCalls } from './run-tool-calls.js';

const call = (id: string, name: string, args: string): ChatCompletionMessageToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

describe('one bad call never loses the batch', () => {
  it('every failure kind at every position: one tool message per call, each side effect once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...FAILURE_KINDS, 'unknown_tool', 'bad_json'), {
          minLength: 1,
          maxLength: 6,
        }),
        async (kinds) => {
          const failures = createFailureTools();
          const gateway = createToolGateway({ approvalMode: 'full', env: {} });
          const calls = kinds.map((kind, index) =>
            call(
              `call_${index}`,
              kind === 'unknown_tool'
                ? 'no_such_tool'
                : failures.nameOf(kind === 'bad_json' ? 'ok' : kind),
              kind === 'bad_json' ? '{"n":' : '{}',
            ),
          );
          const batch = await runToolCalls(calls, { tools: failures.tools, gateway });
          expect(batch.done).toBe(true);
          const messages = batch.toolMessages();
          expect(messages.map((message) => message.tool_call_id)).toEqual(calls.map((c) => c.id));
          for (const [index, message] of messages.entries()) {
            const result = JSON.parse(String(message.content)) as { ok: boolean };
            expect(result.ok, kinds[index]).toBe(kinds[index] === 'ok');
          }
          expect(failures.ran.get('ok') ?? 0).toBe(kinds.filter((kind) => kind === 'ok').length);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  it('a resume whose decision cannot be applied answers that call alone; siblings keep their results', async () => {
    const runs: string[] = [];
    const gated = defineTool({
      name: 'gated',
      description: 'Needs approval.',
      input: z.object({ id: z.string() }),
      policy: { riskLevel: 'high', sideEffects: ['x'] },
      execute: ({ id }) => {
        runs.push(id);
        return { ok: true, id };
      },
    });
    const failures = createFailureTools();
    // A shared store that goes down while the host decides (a Redis failover, say).
    const memory = createInMemoryApprovalStore();
    let storeDown = false;
    const store: ApprovalStore = {
      ...memory,
      transition: (id, from, to, patch) => {
        if (storeDown && to === 'approved') return Promise.reject(new Error('store unavailable'));
        return memory.transition(id, from, to, patch);
      },
    };
    const gateway = createToolGateway({ env: {}, approvalStore: store });
    const batch = await runToolCalls(
      [
        call('a', 'gated', '{"id":"a"}'),
        call('b', 'fail_throws', '{}'),
        call('c', 'gated', '{"id":"c"}'),
      ],
      { tools: [gated, ...failures.tools], gateway },
    );
    expect(batch.pending.map((pending) => pending.callId)).toEqual(['a', 'c']);
    storeDown = true;
    const failed = await batch.resume({ a: 'approve' });
    // "a" could not be approved: it answers alone; "b" keeps its result; "c" still waits.
    expect(failed.pending.map((pending) => pending.callId)).toEqual(['c']);
    expect(failed.calls.map((outcome) => [outcome.callId, outcome.status])).toEqual([
      ['a', 'done'],
      ['b', 'done'],
      ['c', 'pending'],
    ]);
    expect(failed.calls[0]!.result).toMatchObject({ ok: false, error_type: 'tool_error' });
    storeDown = false;
    const next = await failed.resume({ c: 'approve' });
    expect(next.done).toBe(true);
    const results = next.toolMessages().map((message) => JSON.parse(String(message.content)));
    expect(results.map((result) => result.ok)).toEqual([false, false, true]);
    expect(runs).toEqual(['c']);
  });
});
