// pnpm bench (in packages/mcp-server): one low-risk call (read a 4 KiB file) through `ksadk-mcp`
// over stdio, against the same tool called directly through the gateway (what the MCP hop costs),
// and against @modelcontextprotocol/server-filesystem reading the same file over stdio (what an
// MCP host would otherwise use). Each round times every side once, the sides alternating.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const { createToolGateway } = await import('@ksadk/core');
const { createWorkspaceToolset } = await import('@ksadk/core/workspace');

const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-mcp-bench-'));
await writeFile(path.join(dir, 'notes.md'), `${'a line of notes for the benchmark\n'.repeat(120)}`);

async function connect(command, args) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    }),
  );
  return client;
}

const ours = await connect(process.execPath, [
  path.join(packageDir, 'bin/ksadk-mcp.mjs'),
  '--workspace',
  dir,
  '--read-only',
]);
const filesystemBin = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist/index.js',
);
const filesystem = await connect(process.execPath, [filesystemBin, dir]);
const fsTools = (await filesystem.listTools()).tools.map((tool) => tool.name);
const fsRead = fsTools.includes('read_text_file') ? 'read_text_file' : 'read_file';

const gateway = createToolGateway({ env: {} });
const read = createWorkspaceToolset({ root: dir }).tools.find(
  (tool) => tool.name === 'read_workspace_file',
);

const check = (result) => {
  if (result.isError)
    throw new Error(`a call failed: ${JSON.stringify(result.content).slice(0, 200)}`);
};
const sides = {
  direct: async () => {
    const result = await gateway.invoke(read, { path: 'notes.md' });
    if (!result.ok) throw new Error(`the direct call failed: ${result.error_type}`);
  },
  ours: async () =>
    check(await ours.callTool({ name: 'read_workspace_file', arguments: { path: 'notes.md' } })),
  filesystem: async () =>
    check(
      await filesystem.callTool({ name: fsRead, arguments: { path: path.join(dir, 'notes.md') } }),
    ),
};

const rounds = 7;
const times = { direct: [], ours: [], filesystem: [] };
const ratios = [];
for (let round = 0; round < rounds; round += 1) {
  const order =
    round % 2 === 0 ? ['filesystem', 'ours', 'direct'] : ['direct', 'ours', 'filesystem'];
  const got = {};
  for (const side of order)
    got[side] = await perCallMicros(sides[side], { batch: 100, samples: 9, warmup: 200 });
  for (const side of order) times[side].push(got[side]);
  ratios.push(got.ours / got.filesystem);
}
await ours.close();
await filesystem.close();
await rm(dir, { recursive: true, force: true });

const ratio = median(ratios);
const overhead = median(times.ours.map((value, index) => value - times.direct[index]));
printTable(
  `One read of a 4 KiB file, median µs per call over ${rounds} rounds`,
  ['path', 'µs/call', 'ratio'],
  [
    ['gateway.invoke(read_workspace_file), no MCP', median(times.direct).toFixed(1), ''],
    [
      'ksadk-mcp over stdio (MCP SDK client)',
      median(times.ours).toFixed(1),
      `${ratio.toFixed(2)}×`,
    ],
    [
      `@modelcontextprotocol/server-filesystem ${fsRead} over stdio`,
      median(times.filesystem).toFixed(1),
      '1.00×',
    ],
  ],
);
console.log(`\nThe MCP hop (stdio, JSON-RPC, both SDKs) adds ${overhead.toFixed(0)} µs per call.`);
const target = `ksadk-mcp within 1.2× of server-filesystem (${ratio.toFixed(2)}×)`;
printTable('Targets', ['target', 'met'], [[target, ratio <= 1.2 ? 'yes' : 'NO']]);
if (ratio > 1.2) {
  console.error(`TARGETS MISSED (1 of 1):\n  ✗ ${target}`);
  process.exitCode = 1;
}
