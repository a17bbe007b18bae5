// pnpm bench (in packages/anthropic): one Claude turn with a tool call — the model asks for the
// tool, the tool runs, the model answers — with the SDK's own tool runner
// (`client.beta.messages.toolRunner` with a `betaZodTool`) and with @ksadk/anthropic's
// `createToolLoop` (gateway inside), against the same scripted Messages API.

import { fileURLToPath, pathToFileURL } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { createToolGateway, defineTool } from '@ksadk/core';
import { z } from 'zod';
import { perCallMicros, printTable } from '../../core/bench/measure.mjs';

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

const opts = { batch: 50, samples: 30, warmup: 300 };
const runs = { native: [], ours: [] };
for (let round = 0; round < 3; round += 1) {
  runs.native.push(await perCallMicros(nativeTurn, opts));
  runs.ours.push(await perCallMicros(oursTurn, opts));
}
const nativeMicros = Math.min(...runs.native);
const oursMicros = Math.min(...runs.ours);
const ratio = oursMicros / nativeMicros;

printTable(
  'Anthropic: one Claude turn with a tool call, two model calls to a scripted Messages API (median µs)',
  ['path', 'µs/turn', 'ratio'],
  [
    ["SDK's toolRunner with a betaZodTool", nativeMicros.toFixed(1), '1.00×'],
    [
      '@ksadk/anthropic createToolLoop (gateway inside)',
      oursMicros.toFixed(1),
      `${ratio.toFixed(2)}×`,
    ],
  ],
);
printTable(
  'Targets',
  ['target', 'met'],
  [
    [
      `a turn within 1× of the SDK's own tool path, ±5% noise (${ratio.toFixed(2)}×)`,
      ratio <= 1.05 ? 'yes' : 'NO',
    ],
  ],
);
if (ratio > 1.05) {
  console.error(
    `TARGETS MISSED (1 of 1):\n  ✗ a turn within 1× of the SDK's own tool path (${ratio.toFixed(2)}×)`,
  );
  process.exitCode = 1;
}
