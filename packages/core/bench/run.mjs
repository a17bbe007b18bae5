// pnpm bench (in packages/core): gateway overhead and cold import cost, side by side with the
// alternatives a user would otherwise reach for. Runs against the built package (dist/).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tool as langChainTool } from '@langchain/core/tools';
import { z } from 'zod';
import { coldImportMillis, perCallMicros, printTable } from './measure.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const distEntry = pathToFileURL(`${packageDir}dist/index.js`).href;
const { createToolGateway, defineTool } = await import(distEntry);

const input = z.object({ text: z.string() });
const noop = ({ text }) => ({ ok: true, length: text.length });
const args = { text: 'hello' };

const ksadkTool = defineTool({ name: 'noop', description: 'Does nothing.', input, execute: noop });
const gateway = createToolGateway({ env: {} });
const lcTool = langChainTool(noop, { name: 'noop', description: 'Does nothing.', schema: input });

console.log(`KsADK core benchmarks — node ${process.version}, ${here}`);

const direct = await perCallMicros(async () => noop(args));
const zodOnly = await perCallMicros(async () => noop(input.parse(args)));
const viaGateway = await perCallMicros(() => gateway.invoke(ksadkTool, args));
const viaLangChain = await perCallMicros(() => lcTool.invoke(args), {
  batch: 200,
  samples: 30,
  warmup: 2000,
});
const added = viaGateway - direct;

printTable(
  'Per call, low-risk no-op tool (median µs; async calls awaited in sequence)',
  ['path', 'µs/call', 'vs direct'],
  [
    ['direct function call', direct.toFixed(3), '1.0×'],
    ['zod parse + call', zodOnly.toFixed(3), `${(zodOnly / direct).toFixed(1)}×`],
    ['@ksadk/core gateway.invoke', viaGateway.toFixed(3), `${(viaGateway / direct).toFixed(1)}×`],
    [
      '@langchain/core tool().invoke',
      viaLangChain.toFixed(3),
      `${(viaLangChain / direct).toFixed(1)}×`,
    ],
  ],
);

const baseline = coldImportMillis('', { cwd: packageDir });
const zodImport = coldImportMillis('zod', { cwd: packageDir });
const coreImport = coldImportMillis(distEntry, { cwd: packageDir });
const lcImport = coldImportMillis('@langchain/core/tools', { cwd: packageDir });

printTable(
  'Cold import (median ms of a fresh node process, minus bare node startup)',
  ['module', 'ms'],
  [
    [`bare node startup (${baseline.toFixed(1)} ms, subtracted)`, '0.0'],
    ['zod', (zodImport - baseline).toFixed(1)],
    ['@ksadk/core', (coreImport - baseline).toFixed(1)],
    ['@langchain/core/tools', (lcImport - baseline).toFixed(1)],
  ],
);

const targets = [
  [`gateway adds under 5 µs per call (added ${added.toFixed(2)} µs)`, added < 5],
  [
    `gateway at least 5× cheaper than LangChain invoke (${(viaLangChain / viaGateway).toFixed(1)}×)`,
    viaLangChain / viaGateway >= 5,
  ],
  [
    `@ksadk/core import within 30 ms of zod alone (+${(coreImport - zodImport).toFixed(1)} ms)`,
    coreImport - zodImport <= 30,
  ],
];
printTable(
  'Targets',
  ['target', 'met'],
  targets.map(([name, met]) => [name, met ? 'yes' : 'NO']),
);
