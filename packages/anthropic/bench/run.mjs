// pnpm bench (in packages/anthropic): one Claude turn with a tool call — the model asks for the
// tool, the tool runs, the model answers — with the SDK's own tool runner
// (`client.beta.messages.toolRunner` with a `betaZodTool`) and with @ksadk/anthropic's
// `createToolLoop` (gateway inside), against the same scripted Messages API.

import { fileURLToPath, pathToFileURL } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { createToolGateway, defineTool } from '@ksadk/core';
import { z } from 'zod';
import { compareTurns } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { createToolLoop } = await import(pathToFileURL(`${packageDir}dist/index.js`).href);
const { createScriptedAnthropicFetch } = await import(
  pathToFileURL(`${packageDir}dist/testing/index.js`).href
);

const input = z.object({ text: z.string() });
const gateway = createToolGateway({ env: {} });
const ours = [
  defineTool({
    name: 'noop',
    description: 'Does nothing.',
    input,
    execute: ({ text }) => ({ ok: true, length: text.length }),
  }),
];
const native = [
  betaZodTool({
    name: 'noop',
    description: 'Does nothing.',
    inputSchema: input,
    run: ({ text }) => JSON.stringify({ ok: true, length: text.length }),
  }),
];

/** Claude for one turn: a tool call, then (seeing its result) a final answer. */
const reply = (body) =>
  body.messages.at(-1)?.role === 'user' && Array.isArray(body.messages.at(-1).content)
    ? 'done'
    : { toolCalls: [{ name: 'noop', args: { text: 'hello' } }] };
const client = () =>
  new Anthropic({
    apiKey: 'offline',
    baseURL: 'http://scripted.invalid',
    fetch: createScriptedAnthropicFetch([reply, reply]).fetch,
    maxRetries: 0,
  });

const nativeTurn = async () => {
  const message = await client().beta.messages.toolRunner({
    model: 'claude-scripted',
    max_tokens: 1024,
    tools: native,
    messages: [{ role: 'user', content: 'go' }],
  });
  if (message.content[0]?.text !== 'done') throw new Error('unexpected answer');
};
const oursTurn = async () => {
  const result = await createToolLoop(client(), {
    model: 'claude-scripted',
    tools: ours,
    gateway,
  }).run('go');
  if (result.output !== 'done') throw new Error(`unexpected answer: ${result.status}`);
};

await compareTurns({
  title:
    'Anthropic: one Claude turn with a tool call, two model calls to a scripted Messages API (median µs)',
  native: { label: "SDK's toolRunner with a betaZodTool", turn: nativeTurn },
  ours: { label: '@ksadk/anthropic createToolLoop (gateway inside)', turn: oursTurn },
  opts: { batch: 50, samples: 30, warmup: 300 },
});
