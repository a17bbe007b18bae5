// The adapter conformance kit of @ksadk/core/testing, through @ksadk/anthropic's tool loop with the
// real @anthropic-ai/sdk client and a scripted Claude: tool_use blocks in, tool_result blocks out.
import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { runWithInvocationContext } from '@ksadk/core';
import { type AdapterDriver, type AdapterTurn, checkAdapter } from '@ksadk/core/testing';
import { describe, expect, it } from 'vitest';
import { createToolLoop, type ToolLoopResult } from './create-tool-loop.js';
import { createScriptedAnthropicFetch } from './testing/scripted-anthropic-fetch.js';

const who = { accountId: 'acct-conformance', userId: 'u', sessionId: 's' };

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

function turnOf(result: ToolLoopResult): AdapterTurn {
  return {
    results: resultsIn(result.messages),
    paused: result.status === 'needs_approval' ? result.pending.map((call) => call.callId) : [],
    resume: async (decisions) => {
      if (result.status !== 'needs_approval') throw new Error('nothing is paused');
      return turnOf(await runWithInvocationContext(who, () => result.resume(decisions)));
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
};

describe('the adapter conformance kit', () => {
  it('@ksadk/anthropic conforms', { timeout: 120_000 }, async () => {
    expect(await checkAdapter(anthropicDriver)).toEqual([]);
  });
});
