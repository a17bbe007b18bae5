// MCP call cost, side by side against one local server: a KsADK MCP tool through the gateway,
// a raw pooled @modelcontextprotocol/sdk Client.callTool, and @google/adk's MCPToolset tool
// (which opens a session per call).

import { createRequire } from 'node:module';
import { LogLevel, MCPToolset, setLogLevel } from '@google/adk';
import { createToolGateway } from '@ksadk/core';
import { loadMcpToolsets } from '@ksadk/core/mcp';
import { startMcpTestServer } from '@ksadk/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// ADK logs every per-call session teardown as an error; nothing above ERROR exists, so go past it.
setLogLevel(LogLevel.ERROR + 1);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
};
/** Interleaved rounds so drift (GC, CPU frequency, the server warming up) hits every path alike. */
async function interleaved(fns, { rounds = 12, batch = 40, warmup = 40 } = {}) {
  for (const fn of fns) for (let i = 0; i < warmup; i += 1) await fn();
  const samples = fns.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, fn] of fns.entries()) {
      for (let i = 0; i < batch; i += 1) {
        const start = process.hrtime.bigint();
        await fn();
        samples[index].push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
  }
  return samples.map(median);
}
async function perCallMs(fn, { warmup = 30, runs = 300 } = {}) {
  for (let i = 0; i < warmup; i += 1) await fn();
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

const server = await startMcpTestServer({
  stateful: true,
  tools: [
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => ({ content: [{ type: 'text', text: String(text) }] }),
    },
  ],
});
const args = { text: 'hello' };

const loaded = await loadMcpToolsets([{ name: 'bench', url: server.url }]);
const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const [echo] = loaded.tools;
const raw = new Client({ name: 'raw', version: '1' });
await raw.connect(new StreamableHTTPClientTransport(new URL(server.url)));
const [pooled, ours] = await interleaved([
  () => raw.callTool({ name: 'echo', arguments: args }),
  () => gateway.invoke(echo, args),
]);

const adkToolset = new MCPToolset({ type: 'StreamableHTTPConnectionParams', url: server.url }, []);
const [adkTool] = await adkToolset.getTools();
const adk = await perCallMs(
  () => adkTool.runAsync({ args, toolContext: { abortSignal: undefined } }),
  { warmup: 10, runs: 100 },
);

await raw.close();
await loaded.close();
await adkToolset.close();
await server.close();

// stdio: the reference server as a child process, our transport and toolset against the SDK's.
const everything = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
const stdioLoaded = await loadMcpToolsets([
  { name: 'everything', command: process.execPath, args: [everything] },
]);
const stdioEcho = stdioLoaded.tools.find((tool) => tool.originalName === 'echo');
const rawStdio = new Client({ name: 'raw', version: '1' });
await rawStdio.connect(new StdioClientTransport({ command: process.execPath, args: [everything] }));
// Each path talks to its own server process, and a Node server needs a few thousand calls before
// its JIT settles (the first hundreds cost 3–5× more): warm both well before measuring.
const [rawStdioMs, oursStdioMs] = await interleaved(
  [
    () => rawStdio.callTool({ name: 'echo', arguments: { message: 'hello' } }),
    () => gateway.invoke(stdioEcho, { message: 'hello' }),
  ],
  { warmup: 3000, rounds: 20, batch: 50 },
);
await rawStdio.close();
await stdioLoaded.close();

const row = (name, ms) =>
  `${name.padEnd(46)} ${ms.toFixed(3).padStart(8)} ms   ${(ms / pooled).toFixed(2)}× raw`;
console.log(
  '\nMCP tool call against one local Streamable HTTP server (median of sequential calls)',
);
console.log(row('raw pooled @modelcontextprotocol/sdk callTool', pooled));
console.log(row('@ksadk/core MCP tool via gateway.invoke', ours));
console.log(row('@google/adk MCPToolset tool.runAsync', adk));
console.log('\nMCP tool call against @modelcontextprotocol/server-everything over stdio (median)');
console.log(
  `${'raw @modelcontextprotocol/sdk over StdioClientTransport'.padEnd(46)} ${rawStdioMs.toFixed(3).padStart(8)} ms   1.00× raw`,
);
console.log(
  `${'@ksadk/core stdio MCP tool via gateway.invoke'.padEnd(46)} ${oursStdioMs.toFixed(3).padStart(8)} ms   ${(oursStdioMs / rawStdioMs).toFixed(2)}× raw (+${Math.round((oursStdioMs - rawStdioMs) * 1000)} µs)`,
);
console.log('\nTargets');
console.log(
  `  within 1.1× of the raw pooled client: ${(ours / pooled).toFixed(2)}× — ${ours / pooled <= 1.1 ? 'yes' : 'NO'}`,
);
console.log(
  `  at least 3× faster than ADK's MCPToolset: ${(adk / ours).toFixed(1)}× — ${adk / ours >= 3 ? 'yes' : 'NO'}`,
);
console.log(
  `  stdio within 1.1× of the raw SDK client: ${(oursStdioMs / rawStdioMs).toFixed(2)}× — ${oursStdioMs / rawStdioMs <= 1.1 ? 'yes' : 'NO'}`,
);
