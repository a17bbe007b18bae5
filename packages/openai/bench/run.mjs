// pnpm bench (in packages/openai): one model turn with a tool call — the model asks for the tool,
// the tool runs, the model answers — through the SDK's own tool runner (`runTools` with a
// `zodFunction` tool) and through @ksadk/openai's `createToolLoop` (gateway inside), against the
// same scripted endpoint. Also the bare cost of `runToolCalls` for one call.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolGateway, defineTool } from '@ksadk/core';
import OpenAI from 'openai';
import { zodFunction } from 'openai/helpers/zod';
import { z } from 'zod';
import { perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { createToolLoop, runToolCalls } = await import(
  pathToFileURL(`${packageDir}dist/index.js`).href
);
const { createScriptedOpenAIFetch } = await import(
  pathToFileURL(`${packageDir}dist/testing/index.js`).href
);

const input = z.object({ text: z.string() });
const fn = ({ text }) => ({ ok: true, length: text.length });
const tools = [defineTool({ name: 'noop', description: 'Does nothing.', input, execute: fn })];
const gateway = createToolGateway({ env: {} });

/** A client whose endpoint alternates: a tool call, then a final answer. */
function client() {
  const turns = [];
  const refill = () =>
    turns.push({ toolCalls: [{ name: 'noop', arguments: { text: 'hello' } }] }, 'done');
  const scripted = createScriptedOpenAIFetch(turns);
  const fetch = (url, init) => {
    if (turns.length === 0) refill();
    return scripted.fetch(url, init);
  };
  return new OpenAI({
    apiKey: 'bench',
    baseURL: 'http://scripted.invalid/v1',
    fetch,
    maxRetries: 0,
  });
}

const sdkClient = client();
const native = zodFunction({ name: 'noop', parameters: input, function: fn });
const runNative = async () => {
  const runner = sdkClient.chat.completions.runTools({
    model: 'scripted',
    messages: [{ role: 'user', content: 'go' }],
    tools: [native],
  });
  await runner.finalContent();
};
const loop = createToolLoop(client(), { model: 'scripted', tools, gateway });
const runOurs = async () => {
  const result = await loop.run('go');
  if (result.status !== 'completed') throw new Error(result.status);
};

const opts = { batch: 50, samples: 30, warmup: 300 };
const nativeA = await perCallMicros(runNative, opts);
const oursA = await perCallMicros(runOurs, opts);
const nativeB = await perCallMicros(runNative, opts);
const oursB = await perCallMicros(runOurs, opts);
const nativeMicros = Math.min(nativeA, nativeB);
const oursMicros = Math.min(oursA, oursB);

const toolCall = {
  id: 'call_1',
  type: 'function',
  function: { name: 'noop', arguments: '{"text":"hello"}' },
};
const bare = await perCallMicros(
  async () => (await runToolCalls([toolCall], { tools, gateway })).toolMessages(),
  { batch: 500, samples: 40, warmup: 5000 },
);

printTable(
  'OpenAI: one model turn with a tool call, two requests to a scripted endpoint (median µs)',
  ['path', 'µs/turn', 'ratio'],
  [
    ['SDK runTools + zodFunction tool', nativeMicros.toFixed(1), '1.00×'],
    [
      '@ksadk/openai createToolLoop (gateway inside)',
      oursMicros.toFixed(1),
      `${(oursMicros / nativeMicros).toFixed(2)}×`,
    ],
  ],
);
console.log(
  `\nrunToolCalls alone, one call (parse, strict-null normalisation, gateway, tool message): ${bare.toFixed(2)} µs`,
);
printTable(
  'Targets',
  ['target', 'met'],
  [
    [
      `per-call overhead under 1.2× the SDK's own tool runner (${(oursMicros / nativeMicros).toFixed(2)}×)`,
      oursMicros / nativeMicros < 1.2 ? 'yes' : 'NO',
    ],
  ],
);
