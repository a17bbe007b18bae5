// pnpm bench (in packages/openai-agents): one `run()` turn with a tool call — the model asks for
// the tool, the tool runs, the model answers — with the SDK's own `tool()` (zod parameters) and
// with @ksadk/openai-agents' `toOpenAIAgentsTools` (gateway inside), against the same scripted model.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolGateway, defineTool } from '@ksadk/core';
import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { toOpenAIAgentsTools } = await import(pathToFileURL(`${packageDir}dist/index.js`).href);
const { createScriptedModel } = await import(
  pathToFileURL(`${packageDir}dist/testing/index.js`).href
);

setTracingDisabled(true);
const parameters = z.object({ text: z.string() });
const fn = ({ text }) => ({ ok: true, length: text.length });
const ours = toOpenAIAgentsTools(
  [defineTool({ name: 'noop', description: 'Does nothing.', input: parameters, execute: fn })],
  { gateway: createToolGateway({ env: {} }) },
);
const native = [
  tool({
    name: 'noop',
    description: 'Does nothing.',
    parameters,
    execute: (input) => JSON.stringify(fn(input)),
  }),
];

/** A model that answers each turn: a tool call, then (seeing the result) a final answer. */
const reply = (request) =>
  Array.isArray(request.input) && request.input.at(-1)?.type === 'function_call_result'
    ? 'done'
    : { toolCalls: [{ name: 'noop', args: { text: 'hello' } }] };
const runner = new Runner({ tracingDisabled: true });
const turn = (tools) => async () => {
  const agent = new Agent({ name: 'bench', model: createScriptedModel([reply, reply]), tools });
  const result = await runner.run(agent, 'go');
  if (result.finalOutput !== 'done') throw new Error(`unexpected answer: ${result.finalOutput}`);
};

const opts = { batch: 50, samples: 30, warmup: 300 };
const runs = { native: [], ours: [] };
for (let round = 0; round < 5; round += 1) {
  runs.native.push(await perCallMicros(turn(native), opts));
  runs.ours.push(await perCallMicros(turn(ours), opts));
}
const nativeMicros = Math.min(...runs.native);
const oursMicros = Math.min(...runs.ours);
const ratio = oursMicros / nativeMicros;

printTable(
  'OpenAI Agents SDK: one run() turn with a tool call, two model calls to a scripted model (median µs)',
  ['path', 'µs/turn', 'ratio'],
  [
    ['SDK tool() with zod parameters', nativeMicros.toFixed(1), '1.00×'],
    [
      '@ksadk/openai-agents toOpenAIAgentsTools (gateway inside)',
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
