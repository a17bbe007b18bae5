// The adapter conformance kit of @ksadk/core/testing, through @ksadk/anthropic's tool loop with the
// real @anthropic-ai/sdk client and a scripted Claude: tool_use blocks in, tool_result blocks out.
import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { runWithInvocationContext } from '@ksadk/core';
import {
  type AdapterDecision,
  type AdapterDriver,
  type AdapterTurn,
  checkAdapter,
} from '@ksadk/core/testing';
import { describe, expect, it } from 'vitest';
import { createToolLoop, type ToolLoopResult } from './create-tool-loop.js';
import { loadAnthropicTools } from './load-anthropic-tools.js';
import { createScriptedAnthropicFetch } from './testing/scripted-anthropic-fetch.js';

const who = { accountId: 'acct-conformance', userId: 'u', sessionId: 's' };

/** The kit's decision as the loop takes it: an approval decision, or a question's answer. */
const decisionOf = (decision: AdapterDecision) => {
  if (typeof decision === 'string') return decision;
  return 'credential' in decision
    ? decision.credential
    : { action: 'accept', content: decision.answer };
};

/** What Claude was given for each call: the tool_result content, by tool_use_id. */
function resultsIn(messages: readonly MessageParam[]): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  for (const message of messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const { tool_use_id, content } = block as ToolResultBlockParam;
      results[tool_use_id] =
        typeof content === 'string' || !content
          ? content
          : content.map((part) => (part.type === 'text' ? part.text : part));
    }
  }
  return results;
}

/** The calls paused for an approval or for a question. */
const pendingOf = (result: ToolLoopResult, kind: 'approval' | 'input' | 'credential'): string[] =>
  result.status === 'needs_approval'
    ? result.pending.flatMap((call) => (call.kind === kind ? [call.callId] : []))
    : [];

function turnOf(result: ToolLoopResult): AdapterTurn {
  return {
    results: resultsIn(result.messages),
    paused: pendingOf(result, 'approval'),
    asked: pendingOf(result, 'input'),
    signIns: pendingOf(result, 'credential'),
    resume: async (decisions) => {
      if (result.status !== 'needs_approval') throw new Error('nothing is paused');
      const answers = Object.fromEntries(
        Object.entries(decisions).map(([id, decision]) => [id, decisionOf(decision)]),
      );
      return turnOf(await runWithInvocationContext(who, () => result.resume(answers)));
    },
  };
}

const anthropicDriver: AdapterDriver = {
  name: '@ksadk/anthropic',
  run: async ({ tools, gateway, calls, onProgress }) => {
    const scripted = createScriptedAnthropicFetch([
      { toolCalls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args })) },
      'Done.',
      'Done.',
    ]);
    const client = new Anthropic({
      apiKey: 'offline',
      baseURL: 'http://scripted.invalid',
      fetch: scripted.fetch,
      maxRetries: 0,
    });
    const loop = createToolLoop(client, { model: 'claude-scripted', tools, gateway, onProgress });
    return turnOf(await runWithInvocationContext(who, () => loop.run('go')));
  },
  load: async (options) => {
    const load = await loadAnthropicTools(options);
    return {
      tools: load.tools,
      sources: load.assembly.sources,
      names: load.definitions.map((definition) => definition.name),
      close: load.close,
    };
  },
};

describe('the adapter conformance kit', () => {
  it('@ksadk/anthropic conforms', { timeout: 120_000 }, async () => {
    expect(await checkAdapter(anthropicDriver)).toEqual([]);
  });
});
