// pnpm bench (in packages/ai-sdk): one generateText turn with a tool call — the model asks for the
// tool, the tool runs, the model answers — with the SDK's own `tool()` (a zod input schema) and
// with @ksadk/ai-sdk's `toAiSdkTools` (gateway inside), against the same scripted model.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolGateway, defineTool } from '@ksadk/core';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { compareTurns } from '../../core/bench/measure.mjs';

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

await compareTurns({
  title:
    'AI SDK: one generateText turn with a tool call, two model calls to a scripted model (median µs)',
  native: { label: 'SDK tool() with a zod schema', turn: turn(native) },
  ours: { label: '@ksadk/ai-sdk toAiSdkTools (gateway inside)', turn: turn(ours) },
  opts: { batch: 50, samples: 30, warmup: 300 },
});
