// A small stdio MCP server for the transport tests: it answers normally and, on request,
// misbehaves the ways real servers do (crashes mid-call, floods stderr, sends an endless line,
// leaves a grandchild behind). `node stdio-server.mjs`.
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'stdio-fixture', version: '1.0.0' });
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const MiB = 1024 * 1024;

/** Writes `megabytes` MiB to a descriptor, 1 MiB at a time, yielding between writes so calls are still served. */
function pour(fd, megabytes, fill) {
  const piece = Buffer.alloc(MiB, fill);
  let left = megabytes * MiB;
  const next = () => {
    if (left <= 0) return;
    try {
      // The pipe may be non-blocking: a write can be partial.
      left -= writeSync(fd, piece, 0, Math.min(MiB, left));
    } catch (error) {
      if (error.code !== 'EAGAIN') return; // the reader went away
    }
    setImmediate(next);
  };
  next();
}

server.registerTool(
  'echo',
  { description: 'Echoes a message.', inputSchema: { message: z.string() } },
  ({ message }) => text(`echo:${message}`),
);
server.registerTool('whoami', { description: 'Process id and environment.' }, () =>
  text(JSON.stringify({ pid: process.pid, env: process.env })),
);
server.registerTool('crash', { description: 'Exits in the middle of the call.' }, () => {
  process.exit(3);
});
server.registerTool(
  'slow',
  { description: 'Answers after a while.', inputSchema: { ms: z.number() } },
  ({ ms }) => new Promise((resolve) => setTimeout(() => resolve(text('late')), ms)),
);
server.registerTool(
  'flood_stderr',
  { description: 'Writes megabytes to stderr.', inputSchema: { megabytes: z.number() } },
  ({ megabytes }) => {
    pour(2, megabytes, 'e');
    return text('flooding');
  },
);
server.registerTool(
  'endless_line',
  {
    description: 'Writes megabytes to stdout without a newline.',
    inputSchema: { megabytes: z.number() },
  },
  ({ megabytes }) => {
    pour(1, megabytes, 'x');
    return new Promise(() => undefined); // never answers: the line is all there is
  },
);
server.registerTool(
  'spawn_sleeper',
  { description: 'Starts a grandchild that holds our stdout and stderr.' },
  () => {
    const sleeper = spawn('sleep', ['1000'], { stdio: ['ignore', 'inherit', 'inherit'] });
    return text(String(sleeper.pid));
  },
);

server.registerTool(
  'spawn_setsid_sleeper',
  { description: 'Starts a grandchild in a session of its own (it leaves our process group).' },
  () => {
    const sleeper = spawn('setsid', ['sleep', '1000'], { stdio: 'ignore' });
    return text(String(sleeper.pid));
  },
);
server.registerTool(
  'spawn_daemon',
  { description: 'Starts a daemon the classic way: a double fork and setsid, reparented to init.' },
  () =>
    new Promise((resolve) => {
      const shell = spawn('sh', ['-c', 'setsid sleep 1000 >/dev/null 2>&1 </dev/null & echo $!'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      shell.stdout.on('data', (chunk) => {
        out += chunk;
      });
      shell.on('close', () => resolve(text(out.trim())));
    }),
);
server.registerTool(
  'environ_search',
  {
    description:
      "Reads its parent's environment through /proc, and every process's it can, for a needle.",
    inputSchema: { needle: z.string() },
  },
  async ({ needle }) => {
    const { readdirSync, readFileSync } = await import('node:fs');
    let parentReadable = false;
    let parentHasNeedle = false;
    try {
      const parent = readFileSync(`/proc/${process.ppid}/environ`, 'latin1');
      parentReadable = true;
      parentHasNeedle = parent.includes(needle);
    } catch {
      // Not readable here.
    }
    const holders = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) holders.push(entry);
      } catch {
        // Not ours to read.
      }
    }
    return text(JSON.stringify({ ppid: process.ppid, parentReadable, parentHasNeedle, holders }));
  },
);

server.registerTool(
  'read_file',
  { description: 'Reads a file of the host, if it can.', inputSchema: { path: z.string() } },
  async ({ path }) => {
    const { readFileSync } = await import('node:fs');
    try {
      return text(readFileSync(path, 'utf8'));
    } catch (error) {
      return text(`unreadable: ${error.code}`);
    }
  },
);

process.stderr.write(`stdio fixture ${process.pid} ready\n`);
await server.connect(new StdioServerTransport());
