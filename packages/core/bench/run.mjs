// pnpm bench (in packages/core): gateway overhead and cold import cost, side by side with the
// alternatives a user would otherwise reach for. Runs against the built package (dist/).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tool as langChainTool } from '@langchain/core/tools';
import { z } from 'zod';
import { benchApprovals } from './approvals.mjs';
import { benchExecutions } from './executions.mjs';
import {
  coldImportRounds,
  median,
  pairedVerdict,
  perCallMicros,
  printTable,
  quantile,
} from './measure.mjs';
import { benchSandboxTools } from './sandbox-tools.mjs';
import { benchSearch } from './search.mjs';
import { benchSkills } from './skills.mjs';
import { benchToolSearch } from './tool-search.mjs';
import { benchTracing } from './tracing.mjs';
import { benchWebFetch } from './web-fetch.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const distEntry = pathToFileURL(`${packageDir}dist/index.js`).href;
const core = await import(distEntry);
const { createToolGateway, defineTool } = core;
const distOf = (subpath) => import(pathToFileURL(`${packageDir}dist/${subpath}.js`).href);
const [workspaceEntry, catalogEntry, skillsEntry, sandboxEntry, webEntry, testingEntry] =
  await Promise.all([
    distOf('workspace'),
    distOf('catalog'),
    distOf('skills'),
    distOf('sandbox'),
    distOf('web'),
    distOf('testing/index'),
  ]);

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

const approvalsBench = await benchApprovals(core);
printTable(
  'Approvals (median µs per call, in-memory store)',
  ['path', 'µs/call', 'added µs'],
  approvalsBench.rows,
);

const executionsBench = await benchExecutions(core);
const besidesRecord = executionsBench.unnamedBare - direct;
printTable(
  'Execution records (median µs per call, no-op tool)',
  ['path', 'µs/call', 'record µs'],
  executionsBench.rows,
);

// Interleaved: every round imports each module once (bare, zod, core, …), so noise hits all alike.
const distUrl = (subpath) => pathToFileURL(`${packageDir}dist/${subpath}.js`).href;
const importSpecifiers = [
  ['bare node startup', ''],
  ['zod', 'zod'],
  ['@ksadk/core', distEntry],
  ['@langchain/core/tools', '@langchain/core/tools'],
  ['@ksadk/core/workspace', distUrl('workspace')],
  ['@ksadk/core/catalog', distUrl('catalog')],
  ['@ksadk/core/mcp', distUrl('mcp')],
  ['@ksadk/core/memory', distUrl('memory')],
  ['@ksadk/core/schema', distUrl('schema')],
  ['@ksadk/core/skills', distUrl('skills')],
  ['@ksadk/core/sandbox', distUrl('sandbox')],
  ['@ksadk/core/web', distUrl('web')],
  ['@ksadk/core/a2a', distUrl('a2a')],
  ['@ksadk/core/adapter', distUrl('adapter')],
  // What a loader pays before its first tools: the import, then what the catalogue defers to use.
  [
    '@ksadk/core/catalog, then createToolCatalog().getTools()',
    `code:const { createToolCatalog } = await import(${JSON.stringify(distUrl('catalog'))});
createToolCatalog({ env: {}, sandbox: { backend: 'local_process' } }).getTools();`,
  ],
];
const importTimes = coldImportRounds(
  importSpecifiers.map(([, specifier]) => specifier),
  { cwd: packageDir, rounds: 21 },
);
const [bareTimes, zodTimes] = importTimes;
const spread = (values) =>
  `${quantile(values, 0.25).toFixed(1)}–${quantile(values, 0.75).toFixed(1)}`;
printTable(
  `Cold import (fresh node process, ${importTimes[0].length} interleaved rounds; ms over bare startup, median and interquartile range)`,
  ['module', 'median ms', 'IQR ms'],
  importSpecifiers.map(([name], index) => {
    const over = importTimes[index].map((time, round) => time - bareTimes[round]);
    return [name, median(over).toFixed(1), spread(over)];
  }),
);
// Every entry is judged against zod alone (their common floor), on the paired per-round difference.
const entryVerdicts = importSpecifiers
  .map(([name], index) => [name, index])
  .filter(([name]) => name.startsWith('@ksadk/core') && !name.includes(', then'))
  .map(([name, index]) => [name, pairedVerdict(importTimes[index], zodTimes, 30)]);
const worstEntry = entryVerdicts.reduce((worst, entry) =>
  entry[1].median > worst[1].median ? entry : worst,
);

const search = await benchSearch(core, workspaceEntry);
printTable(
  'Workspace search, 20,000 files / 80 MB (median ms of 7 interleaved rounds)',
  ['path', 'ms', 'vs rg'],
  search.rows,
);
const toolSearch = await benchToolSearch(core, catalogEntry);
printTable('tool_search over 1,000 registered tools', ['path', 'ms/query'], toolSearch.rows);

const skillsBench = await benchSkills({
  skills: skillsEntry,
  sandbox: sandboxEntry,
  testing: testingEntry,
});
printTable('Skills (median ms)', ['path', 'ms', 'vs baseline'], skillsBench.rows);

const sandboxBench = await benchSandboxTools({ core, sandbox: sandboxEntry });
printTable('Sandbox tools (median ms per command)', ['path', 'ms', 'vs bare'], sandboxBench.rows);

const webBench = await benchWebFetch({ core, web: webEntry });
printTable(
  'web_fetch of a 1 MB HTML page (median ms)',
  ['path', 'ms', 'vs baseline'],
  webBench.rows,
);

// Last: it registers a global tracer provider for its third row.
const tracingBench = await benchTracing(core);
printTable(
  'Tracing per gateway.invoke (median µs; no-op tool)',
  ['path', 'µs/call', 'added µs'],
  tracingBench.rows,
);

const targets = [
  [
    `gateway adds under 2 µs per call besides its execution record (added ${besidesRecord.toFixed(2)} µs with a store that keeps nothing; ${added.toFixed(2)} µs with its in-memory record)`,
    besidesRecord < 2,
  ],
  [
    `gateway at least 20× cheaper than LangChain invoke (${(viaLangChain / viaGateway).toFixed(1)}×)`,
    viaLangChain / viaGateway >= 20,
  ],
  [
    `every @ksadk/core entry imports within 30 ms of zod alone (worst: ${worstEntry[0]}, +${worstEntry[1].median.toFixed(1)} ms, IQR ${worstEntry[1].low.toFixed(1)}–${worstEntry[1].high.toFixed(1)})`,
    entryVerdicts.some(([, v]) => v.verdict === 'missed')
      ? false
      : entryVerdicts.every(([, v]) => v.verdict === 'met')
        ? true
        : 'noise',
  ],
  ...approvalsBench.targets,
  ...executionsBench.targets,
  ...search.targets,
  ...toolSearch.targets,
  ...skillsBench.targets,
  ...sandboxBench.targets,
  ...webBench.targets,
  ...tracingBench.targets,
];
printTable(
  'Targets',
  ['target', 'met'],
  targets.map(([name, met]) => [
    name,
    met === 'noise' ? 'within noise (spread too wide to call)' : met ? 'yes' : 'NO',
  ]),
);
const missed = targets.filter(([, met]) => met === false).map(([name]) => name);
if (missed.length > 0) {
  console.error(`\nTARGETS MISSED (${missed.length} of ${targets.length}):`);
  for (const name of missed) console.error(`  ✗ ${name}`);
  console.error(
    'Measure on an idle machine before believing a miss; a miss that repeats is a regression.',
  );
  process.exitCode = 1;
} else {
  console.log(`\nAll ${targets.length} targets met (or within noise).`);
}
