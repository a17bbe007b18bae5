// pnpm bench (in packages/openai-agents): one `run()` turn with a tool call — the model asks for
// the tool, the tool runs, the model answers — with the SDK's own `tool()` (zod parameters) and
// with @ksadk/openai-agents' `toOpenAIAgentsTools` (gateway inside), against the same scripted model.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolGateway, defineTool } from '@ksadk/core';
import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { compareTurns } from '../../core/bench/measure.mjs';

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

await compareTurns({
  title:
    'OpenAI Agents SDK: one run() turn with a tool call, two model calls to a scripted model (median µs)',
  native: { label: 'SDK tool() with zod parameters', turn: turn(native) },
  ours: { label: '@ksadk/openai-agents toOpenAIAgentsTools (gateway inside)', turn: turn(ours) },
  opts: { batch: 50, samples: 30, warmup: 300 },
});
