import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import type { ToolResult } from '../gateway/results.js';
import type { Tool } from '../tool/tool.js';
import { trackedTrees } from '../util/process-tree.js';
import { startLoopWatch } from '../util/test-fixtures/watch-loop.js';
import { loadMcpToolsets } from './load-mcp-toolsets.js';
import { type McpStdioServerConfig, parseMcpServerConfigs } from './mcp-config.js';
import { createMcpToolset, type McpToolset } from './mcp-toolset.js';
import { createStdioConnection } from './stdio-connection.js';

const FIXTURES = fileURLToPath(new URL('./test-fixtures/', import.meta.url));
const SERVER = path.join(FIXTURES, 'stdio-server.mjs');
const SILENT = path.join(FIXTURES, 'silent-server.mjs');
const CORE = fileURLToPath(new URL('../..', import.meta.url));
const MiB = 1024 * 1024;
const FLOOD_MIB = 64;

const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const toolsets: McpToolset[] = [];
/** Every process id a test saw, killed (by id) after the run if one somehow survived. */
const seen = new Set<number>();

afterEach(async () => {
  await Promise.all(toolsets.splice(0).map((toolset) => toolset.close()));
});
afterAll(() => {
  for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/** A process's state letter and start time (clock ticks since boot), or nothing once it is gone. */
function statOf(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, start: fields[19]! };
  } catch {
    return undefined;
  }
}

/** Start times of the processes a test saw: a busy machine may give a dead one's id to another. */
const startTimes = new Map<number, string>();

/** Records `pid` as one the test saw (killed after the run if it somehow survived). */
function see(pid: number): number {
  seen.add(pid);
  const stat = statOf(pid);
  if (stat && !startTimes.has(pid)) startTimes.set(pid, stat.start);
  return pid;
}

/** Whether a process exists, is the one the test saw, and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  const stat = statOf(pid);
  if (!stat || stat.state === 'Z') return false;
  const start = startTimes.get(pid);
  return start === undefined || start === stat.start;
}

/**
 * How long a process the code killed may take to be gone: a kill is immediate, but on a loaded CI
 * machine the exit can be slow to show; the processes the tests start live 1000 s otherwise.
 */
const GONE_MS = 10_000;

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

function stdioToolset(entry: Record<string, unknown> = {}, script = SERVER): McpToolset {
  const { configs, problems } = parseMcpServerConfigs([
    { name: 'fixture', command: process.execPath, args: [script], ...entry },
  ]);
  expect(problems).toEqual([]);
  const toolset = createMcpToolset(configs[0]!);
  toolsets.push(toolset);
  return toolset;
}

const byName = (tools: Tool[], name: string): Tool => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

async function call(tools: Tool[], name: string, args: Record<string, unknown> = {}) {
  return (await gateway.invoke(byName(tools, name), args)) as ToolResult & { text?: string };
}

async function serverPid(tools: Tool[]): Promise<number> {
  const result = await call(tools, 'whoami');
  expect(result).toMatchObject({ ok: true });
  const pid = (JSON.parse(result.text!) as { pid: number }).pid;
  see(pid);
  return pid;
}

describe('a stdio MCP server', () => {
  it('starts lazily and once, lists and calls through the gateway, and keeps its stderr for the host', async () => {
    const toolset = stdioToolset();
    expect(toolset.diagnostics()).toMatchObject({ transport: 'stdio', starts: 0, pid: undefined });
    // Concurrent first uses share one process.
    const [tools] = await Promise.all([toolset.tools(), toolset.prefetch(), toolset.prefetch()]);
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'crash',
      'echo',
      'endless_line',
      'environ_search',
      'flood_stderr',
      'read_file',
      'slow',
      'spawn_daemon',
      'spawn_setsid_sleeper',
      'spawn_sleeper',
      'whoami',
    ]);
    expect(byName(tools, 'echo')).toMatchObject({ group: 'mcp:fixture', originalName: 'echo' });
    expect(await call(tools, 'echo', { message: 'hi' })).toEqual({
      ok: true,
      text: 'echo:hi',
    });
    const pids = await Promise.all([1, 2, 3, 4].map(() => serverPid(tools)));
    expect(new Set(pids).size).toBe(1);
    const diagnostics = toolset.diagnostics();
    expect(diagnostics).toMatchObject({ transport: 'stdio', starts: 1, crashes: 0, pid: pids[0] });
    expect(diagnostics.stderrTail).toContain(`stdio fixture ${pids[0]} ready`);
    // The model never sees stderr: it is not part of any result.
    expect(JSON.stringify(await call(tools, 'echo', { message: 'x' }))).not.toContain('ready');
  });

  it('gets a minimal environment: PATH, HOME and its entry’s env, nothing else of ours', async () => {
    vi.stubEnv('SECRET_TOKEN', 'parent-secret-0123456789');
    vi.stubEnv('OTHER_SETTING', 'parent-other');
    const toolset = stdioToolset({
      env: { GREETING: 'hello-from-entry', SERVICE_API_KEY: 'entry-key-abcdef123456' },
    });
    const tools = await toolset.tools();
    const result = await call(tools, 'whoami');
    const env = (JSON.parse(result.text!) as { env: Record<string, string> }).env;
    expect(Object.keys(env).sort()).toEqual(
      [
        'GREETING',
        'PATH',
        'SERVICE_API_KEY',
        // The tree's marker: how what the server starts is found when it stops.
        'KSADK_PROCESS_TREE',
        ...(process.env['HOME'] ? ['HOME'] : []),
      ].sort(),
    );
    expect(env['KSADK_PROCESS_TREE']).toMatch(/^[0-9a-f]{24}$/);
    expect(env['GREETING']).toBe('hello-from-entry');
    expect(env['PATH']).toBe(process.env['PATH']);
    // The entry's secret-looking values are registered: echoed back, they reach no one.
    expect(env['SERVICE_API_KEY']).toBe('[REDACTED]');
    expect(JSON.stringify(result)).not.toContain('parent-secret');
  });

  it('crashing mid-call: the call answers outcome_unknown at once and is not replayed; the next call restarts it', async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    const first = await serverPid(tools);
    let started = performance.now();
    const crashed = await call(tools, 'crash');
    const crashMs = performance.now() - started;
    // A tool with side effects (MCP tools are, unless trusted annotations say otherwise) that lost
    // its server mid-call may have acted: not retryable.
    expect(crashed).toMatchObject({ ok: false, error_type: 'outcome_unknown', outcome: 'unknown' });
    expect(crashed['retryable']).toBeUndefined();
    expect(crashed['error_message']).toMatch(/stopped while the call was running.*code 3/);
    expect(crashMs).toBeLessThan(5000);
    expect(toolset.diagnostics()).toMatchObject({
      crashes: 1,
      lastExit: { pid: first, code: 3, requested: false },
    });
    expect(alive(first)).toBe(false);
    started = performance.now();
    const second = await serverPid(tools);
    const restartMs = performance.now() - started;
    expect(second).not.toBe(first);
    // The restart waited for the back-off (0.5 s) and the crash was not replayed (one crash).
    expect(restartMs).toBeGreaterThanOrEqual(400);
    expect(restartMs).toBeLessThan(5000);
    expect(toolset.diagnostics()).toMatchObject({ starts: 2, crashes: 1, pid: second });
    expect(await call(tools, 'echo', { message: 'back' })).toMatchObject({ text: 'echo:back' });
  });

  it('while it waits out the back-off: close() ends the wait at once, and a wait longer than the timeout fails fast', async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    await serverPid(tools);
    expect(await call(tools, 'crash')).toMatchObject({ error_type: 'outcome_unknown' });
    expect(toolset.diagnostics().restartNotBefore).toBeInstanceOf(Date);
    const started = performance.now();
    const waiting = call(tools, 'echo', { message: 'late' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await toolset.close();
    expect(await waiting).toMatchObject({
      ok: false,
      error_type: 'mcp_unavailable',
      error_message: 'MCP server fixture is unavailable: it was closed',
    });
    // At once, not after the call's timeout (generous for a loaded machine).
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(toolset.diagnostics().starts).toBe(1);

    // A back-off longer than the server's timeout: the start fails at once instead of waiting.
    const { configs } = parseMcpServerConfigs([
      { name: 'quick', command: process.execPath, args: [SERVER], timeout_ms: 5000 },
    ]);
    const connection = createStdioConnection(configs[0] as McpStdioServerConfig, {
      backoff: { initialMs: 8000 },
    });
    toolsets.push({ close: () => connection.close() } as McpToolset);
    const session = await connection.open();
    await expect(session.client.callTool({ name: 'crash' })).rejects.toThrowError(/closed/);
    const before = performance.now();
    await expect(connection.open()).rejects.toThrowError(
      'it keeps stopping; it will be started again in 8 s',
    );
    expect(performance.now() - before).toBeLessThan(4_000); // not the 8 s back-off
    expect(connection.diagnostics()).toMatchObject({ starts: 1, crashes: 1 });
  });

  it('crashing while a grandchild holds its pipes: the call still fails at once and the grandchild goes too', async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    const server = await serverPid(tools);
    const sleeper = Number((await call(tools, 'spawn_sleeper')).text);
    see(sleeper);
    expect(alive(sleeper)).toBe(true);
    const started = performance.now();
    expect(await call(tools, 'crash')).toMatchObject({ error_type: 'outcome_unknown' });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await until(() => !alive(server) && !alive(sleeper), GONE_MS)).toBe(true);
  });

  it('never answering initialize: listing fails within the timeout with a clear error, and no process is left', async () => {
    const groups = trackedTrees();
    const toolset = stdioToolset({ name: 'silent', timeout_ms: 500 }, SILENT);
    const started = performance.now();
    await expect(toolset.tools()).rejects.toThrowError(
      'it did not answer initialize within 500 ms',
    );
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(5000);
    const pid = Number(/silent fixture (\d+) ready/.exec(toolset.diagnostics().stderrTail)?.[1]);
    see(pid);
    expect(pid).toBeGreaterThan(0);
    expect(await until(() => !alive(pid), GONE_MS)).toBe(true);
    expect(toolset.diagnostics()).toMatchObject({
      pid: undefined,
      crashes: 1,
      lastExit: { pid, requested: true, reason: 'it did not complete initialisation' },
    });
    expect(trackedTrees()).toBe(groups);
    // Through the loader: reported and skipped.
    const loaded = await loadMcpToolsets([
      { name: 'silent', command: process.execPath, args: [SILENT], timeoutMs: 300 },
    ]);
    expect(loaded.problems).toEqual([
      'MCP server silent is unavailable: it did not answer initialize within 300 ms',
    ]);
    expect(loaded.toolsets).toEqual([]);
    // Kept, stopped, for the host to show why: its exit and what it wrote to stderr.
    expect(loaded.unavailable.map((toolset) => toolset.name)).toEqual(['silent']);
    expect(loaded.unavailable[0]!.diagnostics()).toMatchObject({
      crashes: 1,
      pid: undefined,
      stderrTail: expect.stringMatching(/silent fixture \d+ ready/),
    });
    expect(trackedTrees()).toBe(groups);
    await loaded.close();
  });

  it('a program that does not exist is reported, not thrown at the model', async () => {
    const toolset = stdioToolset({ command: 'ksadk-no-such-program-1b2c' });
    await expect(toolset.tools()).rejects.toThrowError(
      'it could not be started (ksadk-no-such-program-1b2c: ENOENT, no such program, or no such working directory)',
    );
    expect(toolset.diagnostics()).toMatchObject({
      crashes: 1,
      lastExit: { pid: undefined, reason: 'it could not be started (ENOENT)' },
    });
  });

  it('a server that exits at once, or closes its input first, is reported by its exit code, not the broken pipe', async () => {
    // Either its exit is seen before the first message is written, or the write breaks (EPIPE)
    // first and the SDK closes the transport before the exit arrives: the same report each time.
    const quick = { command: 'sh', args: ['-c', 'echo bad key >&2; exit 3'] };
    const closesFirst = {
      command: process.execPath,
      args: ['-e', "require('node:fs').closeSync(0); setTimeout(() => process.exit(3), 100)"],
    };
    for (const server of [quick, closesFirst, quick, closesFirst, quick, quick]) {
      const toolset = stdioToolset(server);
      await expect(toolset.tools()).rejects.toThrowError(
        'it stopped during initialisation (it exited with code 3)',
      );
      expect(toolset.diagnostics()).toMatchObject({
        crashes: 1,
        lastExit: { code: 3, requested: false },
      });
      await toolset.close();
    }
  });

  it('a missing program under the temporary folder, home or working directory keeps its reason', async () => {
    const os = await import('node:os');
    for (const folder of [os.tmpdir(), os.homedir(), process.cwd()]) {
      const { problems } = await loadMcpToolsets([
        { name: 'gone', command: path.join(folder, 'ksadk-missing-dir', 'server') },
      ]);
      // The path is hidden; the reason and the closing parenthesis are not eaten with it.
      expect(problems).toEqual([
        'MCP server gone is unavailable: it could not be started (<path>: ENOENT, no such program, or no such working directory)',
      ]);
    }
  });

  it('flooding stderr: calls keep working, memory stays bounded, the tail stays at 64 KiB, the event loop never stalls', async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    await serverPid(tools);
    const watch = startLoopWatch();
    const started = performance.now();
    // 64 MiB: a thousand times the kept tail, and still quick on a loaded CI machine.
    expect(await call(tools, 'flood_stderr', { megabytes: FLOOD_MIB })).toMatchObject({ ok: true });
    let calls = 0;
    let slowest = 0;
    while (toolset.diagnostics().stderrBytes < FLOOD_MIB * MiB) {
      if (performance.now() - started > 60_000) throw new Error('the flood did not arrive');
      const before = performance.now();
      expect(await call(tools, 'echo', { message: String(calls) })).toMatchObject({
        text: `echo:${calls}`,
      });
      slowest = Math.max(slowest, performance.now() - before);
      calls += 1;
    }
    const elapsed = performance.now() - started;
    const { maxWallGapMs, maxGapMs, rssGrowth } = watch.stop();
    console.log(
      `stderr flood: ${FLOOD_MIB} MiB in ${Math.round(elapsed)} ms, ${calls} calls meanwhile (slowest ${Math.round(slowest)} ms), longest event-loop gap ${Math.round(maxWallGapMs)} ms (busy ${Math.round(maxGapMs)} ms), RSS +${Math.round(rssGrowth / MiB)} MiB`,
    );
    expect(calls).toBeGreaterThan(0);
    const { stderrTail, stderrBytes } = toolset.diagnostics();
    expect(stderrBytes).toBeGreaterThanOrEqual(FLOOD_MIB * MiB);
    expect(Buffer.byteLength(stderrTail)).toBeLessThanOrEqual(64 * 1024);
    expect(stderrTail).toMatch(/^e+$/);
    expect(maxGapMs).toBeLessThan(250);
    expect(rssGrowth).toBeLessThan(100 * MiB);
  }, 90_000);

  it('a 100 MB stdout line: the server is killed at the message cap and reported; the next call starts it again', async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    const first = await serverPid(tools);
    const watch = startLoopWatch();
    const started = performance.now();
    const result = await call(tools, 'endless_line', { megabytes: 100 });
    const elapsed = performance.now() - started;
    const { maxWallGapMs, maxGapMs, rssGrowth } = watch.stop();
    console.log(
      `100 MB line: refused after ${Math.round(elapsed)} ms, longest event-loop gap ${Math.round(maxWallGapMs)} ms (busy ${Math.round(maxGapMs)} ms), RSS +${Math.round(rssGrowth / MiB)} MiB`,
    );
    expect(result).toMatchObject({ ok: false, error_type: 'outcome_unknown', outcome: 'unknown' });
    expect(result['error_message']).toMatch(/larger than 16777216 bytes/);
    expect(elapsed).toBeLessThan(15_000);
    expect(maxGapMs).toBeLessThan(250);
    expect(rssGrowth).toBeLessThan(100 * MiB);
    expect(await until(() => !alive(first), GONE_MS)).toBe(true);
    expect(toolset.diagnostics()).toMatchObject({
      crashes: 1,
      lastExit: { pid: first, requested: true, reason: expect.stringMatching(/larger than/) },
    });
    expect(await serverPid(tools)).not.toBe(first);
  });

  it('close() stops the server and the grandchild it started (stdin end, then SIGTERM to the group), and unhooks from exit', async () => {
    const listeners = process.listenerCount('exit');
    const groups = trackedTrees();
    const toolset = stdioToolset();
    await toolset.close(); // before anything started: nothing to do
    const tools = await toolset.tools();
    expect(process.listenerCount('exit')).toBe(groups === 0 ? listeners + 1 : listeners);
    const server = await serverPid(tools);
    const sleeper = Number((await call(tools, 'spawn_sleeper')).text);
    see(sleeper);
    expect(alive(sleeper)).toBe(true);
    const started = performance.now();
    await toolset.close();
    const closeMs = performance.now() - started;
    expect(alive(server)).toBe(false);
    expect(await until(() => !alive(sleeper), GONE_MS)).toBe(true);
    // The fixture ignores end of input while its grandchild runs: SIGTERM after the 2 s grace.
    expect(closeMs).toBeGreaterThanOrEqual(1900);
    expect(closeMs).toBeLessThan(10_000);
    expect(toolset.diagnostics()).toMatchObject({ pid: undefined, crashes: 0 });
    expect(trackedTrees()).toBe(groups);
    expect(process.listenerCount('exit')).toBe(listeners);
    // Used again, it starts a new server.
    expect(await serverPid(tools)).not.toBe(server);
  });

  it('close() also stops a setsid grandchild and a double-forked daemon, which left the process group', {
    timeout: 40_000,
  }, async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    const server = await serverPid(tools);
    const setsid = Number((await call(tools, 'spawn_setsid_sleeper')).text);
    const daemon = Number((await call(tools, 'spawn_daemon')).text);
    for (const pid of [setsid, daemon]) see(pid);
    expect(alive(setsid) && alive(daemon)).toBe(true);
    // Neither is in the server's group: a group kill alone leaves them running.
    const group = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    };
    expect(group(setsid)).not.toBe(server);
    expect(group(daemon)).not.toBe(server);
    await toolset.close();
    expect(alive(server)).toBe(false);
    expect(await until(() => !alive(setsid) && !alive(daemon), GONE_MS)).toBe(true);
  });

  it('a server that exits on its own takes its setsid grandchild with it', {
    timeout: 40_000,
  }, async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    await serverPid(tools);
    const setsid = Number((await call(tools, 'spawn_setsid_sleeper')).text);
    see(setsid);
    expect(await call(tools, 'crash')).toMatchObject({ ok: false });
    expect(await until(() => !alive(setsid), GONE_MS)).toBe(true);
  });

  it('a well-behaved server exits on end of input: close() is quick', async () => {
    const toolset = stdioToolset();
    const tools = await toolset.tools();
    const server = await serverPid(tools);
    const started = performance.now();
    await toolset.close();
    expect(performance.now() - started).toBeLessThan(1900);
    expect(alive(server)).toBe(false);
  });

  it.each(['natural', 'exit'])(
    'a host that ends without closing (%s exit) takes the server and its grandchild with it',
    async (how) => {
      const host = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(FIXTURES, 'exit-host.mjs'), how, SERVER],
        { cwd: CORE, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
      );
      let stdout = '';
      let stderr = '';
      host.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      host.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      // Code 0: the idle server did not keep the host alive (the timeout above would have killed
      // it, with no code).
      const code = await new Promise((resolve) => host.on('close', resolve));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const { server, sleeper } = JSON.parse(stdout) as { server: number; sleeper: number };
      see(server);
      see(sleeper);
      expect(await until(() => !alive(server) && !alive(sleeper), GONE_MS)).toBe(true);
    },
    90_000,
  );
});
