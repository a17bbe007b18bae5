// pnpm bench (in packages/adk): @ksadk/adk's import cost over bare @google/adk, and a tool call
// through toAdkTools against a native ADK FunctionTool on the same function; then the MCP comparison.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BaseLlm, FunctionTool, InMemoryRunner, LlmAgent } from '@google/adk';
import { createToolGateway, defineTool } from '@ksadk/core';
import { z } from 'zod';
import { coldImportMillis, perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { toAdkTools } = await import(pathToFileURL(`${packageDir}dist/index.js`).href);

const input = z.object({ text: z.string() });
const fn = ({ text }) => ({ ok: true, length: text.length });
const native = new FunctionTool({
  name: 'noop',
  description: 'Does nothing.',
  parameters: input,
  execute: fn,
});
const [ours] = toAdkTools(
  [defineTool({ name: 'noop', description: 'Does nothing.', input, execute: fn })],
  {
    gateway: createToolGateway({ env: {} }),
  },
);
// What ADK hands a tool: its call id, the session facts, an abort signal.
const toolContext = {
  functionCallId: 'call_1',
  userId: 'u',
  sessionId: 's',
  invocationId: 'i',
  agentName: 'a',
  abortSignal: undefined,
  toolConfirmation: undefined,
};
const request = { args: { text: 'hello' }, toolContext };
const opts = { batch: 500, samples: 40, warmup: 5000 };
const nativeMicros = Math.min(
  await perCallMicros(() => native.runAsync(request), opts),
  await perCallMicros(() => native.runAsync(request), opts),
);
const oursMicros = Math.min(
  await perCallMicros(() => ours.runAsync(request), opts),
  await perCallMicros(() => ours.runAsync(request), opts),
);

/** A model that calls `noop` once, then answers. */
class PingPong extends BaseLlm {
  constructor() {
    super({ model: 'bench' });
  }
  async *generateContentAsync(request) {
    const last = request.contents.at(-1);
    const answered = last?.parts?.some((part) => part.functionResponse);
    yield answered
      ? { content: { role: 'model', parts: [{ text: 'done' }] } }
      : {
          content: {
            role: 'model',
            parts: [{ functionCall: { id: 'c1', name: 'noop', args: { text: 'hello' } } }],
          },
        };
  }
  async connect() {
    throw new Error('no live mode');
  }
}
const turn = (tool) => {
  const runner = new InMemoryRunner({
    agent: new LlmAgent({ name: 'bench', model: new PingPong(), tools: [tool] }),
    appName: 'bench',
  });
  return async () => {
    for await (const _event of runner.runEphemeral({
      userId: 'u',
      newMessage: { role: 'user', parts: [{ text: 'go' }] },
    })) {
      // drain
    }
  };
};
const turnOpts = { batch: 20, samples: 20, warmup: 100 };
const nativeTurn = turn(native);
const oursTurn = turn(ours);
const nativeTurnMicros = Math.min(
  await perCallMicros(nativeTurn, turnOpts),
  await perCallMicros(nativeTurn, turnOpts),
);
const oursTurnMicros = Math.min(
  await perCallMicros(oursTurn, turnOpts),
  await perCallMicros(oursTurn, turnOpts),
);

const bare = coldImportMillis('@google/adk', { cwd: packageDir });
const withKsadk = coldImportMillis(pathToFileURL(`${packageDir}dist/index.js`).href, {
  cwd: packageDir,
});

printTable(
  'ADK: an agent turn that calls the tool — model asks, tool runs, model answers (median µs, InMemoryRunner)',
  ['path', 'µs/turn', 'ratio'],
  [
    ['native @google/adk FunctionTool', nativeTurnMicros.toFixed(1), '1.00×'],
    [
      '@ksadk/adk tool (gateway inside)',
      oursTurnMicros.toFixed(1),
      `${(oursTurnMicros / nativeTurnMicros).toFixed(2)}×`,
    ],
  ],
);
printTable(
  'ADK: the tool call alone (median µs, runAsync)',
  ['path', 'µs/call', 'added'],
  [
    ['native @google/adk FunctionTool', nativeMicros.toFixed(2), ''],
    [
      '@ksadk/adk tool (validation, approval policy, timeout, budget)',
      oursMicros.toFixed(2),
      `+${(oursMicros - nativeMicros).toFixed(2)} µs`,
    ],
  ],
);
printTable(
  'Cold import (median ms of a fresh node process)',
  ['module', 'ms'],
  [
    ['@google/adk', bare.toFixed(1)],
    ['@ksadk/adk (imports @google/adk and @ksadk/core)', withKsadk.toFixed(1)],
  ],
);
printTable(
  'Targets',
  ['target', 'met'],
  [
    [
      `a tool call through the agent under 1.2× the native tool (${(oursTurnMicros / nativeTurnMicros).toFixed(2)}×)`,
      oursTurnMicros / nativeTurnMicros < 1.2 ? 'yes' : 'NO',
    ],
    [
      `import cost over bare @google/adk under 40 ms (+${(withKsadk - bare).toFixed(1)} ms)`,
      withKsadk - bare < 40 ? 'yes' : 'NO',
    ],
  ],
);

await import('./mcp.mjs');
