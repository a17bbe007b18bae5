// The adapter conformance kit of @ksadk/core/testing, through @ksadk/openai's tool-call runner
// (Chat Completions tool calls in, tool messages out).
import { runWithInvocationContext } from '@ksadk/core';
import {
  type AdapterDecision,
  type AdapterDriver,
  type AdapterTurn,
  checkAdapter,
} from '@ksadk/core/testing';
import { describe, expect, it } from 'vitest';
import { loadOpenAITools } from './load-openai-tools.js';
import { runToolCalls } from './run-tool-calls.js';
import { toOpenAITools } from './to-openai-tools.js';
import type { ToolCallBatch } from './tool-call-batch.js';

const who = { accountId: 'acct-conformance', userId: 'u', sessionId: 's' };

/** The kit's decision as the batch takes it: an approval decision, or a question's answer. */
const decisionOf = (decision: AdapterDecision) => {
  if (typeof decision === 'string') return { action: decision };
  return 'credential' in decision
    ? decision.credential
    : { action: 'accept', content: decision.answer };
};

/** A batch as the kit sees it: the tool messages the model gets, the pending calls, and resume. */
function turnOf(batch: ToolCallBatch): AdapterTurn {
  const results: Record<string, unknown> = {};
  for (const message of batch.toolMessages()) results[message.tool_call_id] = message.content;
  return {
    results,
    paused: batch.pending.flatMap((call) => (call.kind === 'approval' ? [call.callId] : [])),
    asked: batch.pending.flatMap((call) => (call.kind === 'input' ? [call.callId] : [])),
    signIns: batch.pending.flatMap((call) => (call.kind === 'credential' ? [call.callId] : [])),
    resume: async (decisions) =>
      turnOf(
        await runWithInvocationContext(who, () =>
          batch.resume(
            Object.fromEntries(
              Object.entries(decisions).map(([id, decision]) => [id, decisionOf(decision)]),
            ),
          ),
        ),
      ),
  };
}

const openAIDriver: AdapterDriver = {
  name: '@ksadk/openai',
  run: async ({ tools, gateway, calls, onProgress }) =>
    turnOf(
      await runWithInvocationContext(who, () =>
        runToolCalls(
          calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: {
              name: call.name,
              arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
            },
          })),
          { tools: [...tools], gateway, onProgress },
        ),
      ),
    ),
  load: async (options) => {
    const load = await loadOpenAITools(options);
    return {
      tools: load.tools,
      sources: load.assembly.sources,
      names: toOpenAITools(load.tools, { api: 'chat' }).map(
        (definition) => (definition as { function: { name: string } }).function.name,
      ),
      close: load.close,
    };
  },
};

describe('the adapter conformance kit', () => {
  it('@ksadk/openai conforms', { timeout: 120_000 }, async () => {
    expect(await checkAdapter(openAIDriver)).toEqual([]);
  });
});
