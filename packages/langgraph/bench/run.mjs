// pnpm bench (in packages/langgraph): @ksadk/langgraph's import cost over bare @langchain/langgraph,
// and a tool call through toLangGraphTools against a native LangChain tool on the same function.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToolGateway, defineTool } from '@ksadk/core';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { coldImportMillis, perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { toLangGraphTools } = await import(pathToFileURL(`${packageDir}dist/index.js`).href);

const input = z.object({ text: z.string() });
const fn = ({ text }) => ({ ok: true, length: text.length });
const call = { name: 'noop', args: { text: 'hello' }, id: 'call_1', type: 'tool_call' };
const native = tool(fn, { name: 'noop', description: 'Does nothing.', schema: input });
const [ours] = toLangGraphTools(
  [defineTool({ name: 'noop', description: 'Does nothing.', input, execute: fn })],
  {
    gateway: createToolGateway({ env: {} }),
  },
);
const opts = { batch: 200, samples: 40, warmup: 2000 };
// Interleave to share drift: native, ours, native, ours.
const nativeA = await perCallMicros(() => native.invoke(call), opts);
const oursA = await perCallMicros(() => ours.invoke(call), opts);
const nativeB = await perCallMicros(() => native.invoke(call), opts);
const oursB = await perCallMicros(() => ours.invoke(call), opts);
const nativeMicros = Math.min(nativeA, nativeB);
const oursMicros = Math.min(oursA, oursB);

const bare = coldImportMillis('@langchain/langgraph', { cwd: packageDir });
const withKsadk = coldImportMillis(pathToFileURL(`${packageDir}dist/index.js`).href, {
  cwd: packageDir,
});

printTable(
  'LangGraph: a tool call (median µs, ToolCall in → ToolMessage out)',
  ['path', 'µs/call', 'ratio'],
  [
    ['native @langchain/core tool().invoke', nativeMicros.toFixed(2), '1.00×'],
    [
      '@ksadk/langgraph tool (gateway inside)',
      oursMicros.toFixed(2),
      `${(oursMicros / nativeMicros).toFixed(2)}×`,
    ],
  ],
);
printTable(
  'Cold import (median ms of a fresh node process)',
  ['module', 'ms'],
  [
    ['@langchain/langgraph', bare.toFixed(1)],
    [
      '@ksadk/langgraph (imports @langchain/langgraph, langchain and @ksadk/core)',
      withKsadk.toFixed(1),
    ],
  ],
);
printTable(
  'Targets',
  ['target', 'met'],
  [
    [
      `per-call overhead under 1.2× the native tool (${(oursMicros / nativeMicros).toFixed(2)}×)`,
      oursMicros / nativeMicros < 1.2 ? 'yes' : 'NO',
    ],
    [
      `import cost over bare @langchain/langgraph under 40 ms (+${(withKsadk - bare).toFixed(1)} ms)`,
      withKsadk - bare < 40 ? 'yes' : 'NO',
    ],
  ],
);
