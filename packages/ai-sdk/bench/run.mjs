// pnpm bench (in packages/ai-sdk): one generateText turn with a tool call — the model asks for the
// tool, the tool runs, the model answers — with the SDK's own `tool()` (a zod input schema) and
// with @ksadk/ai-sdk's `toAiSdkTools` (gateway inside), against the same scripted model.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolGateway, defineTool } from '@ksadk/core';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { toAiSdkTools } = await import(pathToFileURL(`${packageDir}dist/index.js`).href);
const { createScriptedLanguageModel } = await import(
  pathToFileURL(`${packageDir}dist/testing/index.js`).href
);

const input = z.object({ text: z.string() });
const fn = ({ text }) => ({ ok: true, length: text.length });
const ours = toAiSdkTools(
  [defineTool({ name: 'noop', description: 'Does nothing.', input, execute: fn })],
  { gateway: createToolGateway({ env: {} }) },
);
const native = { noop: tool({ description: 'Does nothing.', inputSchema: input, execute: fn }) };

/** A model that answers each turn: a tool call, then (seeing the result) a final answer. */
const reply = (options) =>
  options.prompt.at(-1)?.role === 'tool'
    ? 'done'
    : { toolCalls: [{ name: 'noop', args: { text: 'hello' } }] };
const model = () => createScriptedLanguageModel([reply, reply]);
const turn = (tools) => async () => {
  const result = await generateText({
    model: model(),
    tools,
    prompt: 'go',
    stopWhen: stepCountIs(3),
  });
  if (result.text !== 'done') throw new Error(`unexpected answer: ${result.text}`);
};

const opts = { batch: 50, samples: 30, warmup: 300 };
const runs = { native: [], ours: [] };
for (let round = 0; round < 3; round += 1) {
  runs.native.push(await perCallMicros(turn(native), opts));
  runs.ours.push(await perCallMicros(turn(ours), opts));
}
const nativeMicros = Math.min(...runs.native);
const oursMicros = Math.min(...runs.ours);
const ratio = oursMicros / nativeMicros;

printTable(
  'AI SDK: one generateText turn with a tool call, two model calls to a scripted model (median µs)',
  ['path', 'µs/turn', 'ratio'],
  [
    ['SDK tool() with a zod schema', nativeMicros.toFixed(1), '1.00×'],
    ['@ksadk/ai-sdk toAiSdkTools (gateway inside)', oursMicros.toFixed(1), `${ratio.toFixed(2)}×`],
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
