import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import type { Tool } from '../tool/tool.js';
import { loadMcpToolsets, loadMcpToolsetsFromEnv } from './load-mcp-toolsets.js';
import { parseMcpServerConfigs } from './mcp-config.js';

const FIXTURES = fileURLToPath(new URL('./test-fixtures/', import.meta.url));
const SERVER = path.join(FIXTURES, 'stdio-server.mjs');
const CORE = fileURLToPath(new URL('../..', import.meta.url));
const ENVIRON_HOST = fileURLToPath(new URL('./test-fixtures/environ-host.ts', import.meta.url));
const run = promisify(execFile);
/** The repository: the fixture and the MCP SDK it imports live under it. */
const REPO = fileURLToPath(new URL('../../../..', import.meta.url));
const SECRET = 'rt2-host-secret-0123456789abcdef';

const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const byName = (tools: Tool[], name: string): Tool => {
  const found = tools.find((tool) => tool.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
};
const textOf = async (tools: Tool[], name: string, args: Record<string, unknown> = {}) => {
  const result = (await gateway.invoke(byName(tools, name), args)) as {
    ok: boolean;
    text?: string;
  };
  expect(result, name).toMatchObject({ ok: true });
  return result.text!;
};

/** Host processes whose environment holds `needle`. */
function hostProcessesWith(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle))
        found.push(Number(entry));
    } catch {
      // Ended, or not ours.
    }
  }
  return found;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

async function load(
  entry: Record<string, unknown>,
  options: Parameters<typeof loadMcpToolsets>[1] = {},
) {
  const loaded = await loadMcpToolsets(
    [{ name: 'fixture', command: process.execPath, args: [SERVER], ...entry }],
    options,
  );
  closers.push(loaded.close);
  return loaded;
}

interface EnvironSearch {
  ppid: number;
  parentReadable: boolean;
  parentHasNeedle: boolean;
  holders: string[];
}

describe('a stdio MCP server and the host environment', () => {
  it.each([
    ['none', true],
    ['bubblewrap', false],
  ])(
    'a host started with a secret in its environment, server sandbox %s: the server reads it: %s',
    {
      timeout: 30_000,
    },
    async (mode, readable) => {
      // /proc/<pid>/environ shows the environment a process started with, so the host is a real
      // process started with the secret (as hosts are), not this one with a variable stubbed.
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', ENVIRON_HOST, mode, REPO, SECRET],
        {
          cwd: CORE,
          timeout: 25_000,
          env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', RT2_SECRET_TOKEN: SECRET },
        },
      );
      const seen = JSON.parse(stdout) as EnvironSearch;
      expect(seen.parentHasNeedle).toBe(readable);
      if (!readable) expect(seen.holders).toEqual([]);
    },
  );

  it('under bubblewrap it runs in a PID namespace of its own, and still works', {
    timeout: 30_000,
  }, async () => {
    const { tools, problems } = await load({
      sandbox: { type: 'bubblewrap', read_only_paths: [REPO] },
    });
    expect(problems).toEqual([]);
    expect(await textOf(tools, 'echo', { message: 'hi' })).toBe('echo:hi');
    const who = JSON.parse(await textOf(tools, 'whoami')) as { pid: number };
    expect(who.pid).toBeLessThan(10);
    const seen = JSON.parse(
      await textOf(tools, 'environ_search', { needle: `${process.pid}` }),
    ) as EnvironSearch;
    expect(seen.ppid).not.toBe(process.pid);
  });

  it('under bubblewrap it reads only the paths it is given: not the home folder, whatever its cwd', {
    timeout: 30_000,
  }, async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'ksadk-fake-home-'));
    try {
      await mkdir(path.join(home, '.ssh'));
      await writeFile(path.join(home, '.ssh', 'id_rsa'), 'ALICE PRIVATE KEY');
      const key = path.join(home, '.ssh', 'id_rsa');
      const plain = await load({ env: { HOME: home } });
      expect(await textOf(plain.tools, 'read_file', { path: key })).toBe('ALICE PRIVATE KEY');
      const boxed = await load({
        env: { HOME: home },
        cwd: REPO,
        sandbox: { type: 'bubblewrap', read_only_paths: [REPO] },
      });
      expect(await textOf(boxed.tools, 'read_file', { path: key })).toMatch(/^unreadable/);
      // A working directory that holds the home folder would expose it: refused unless listed.
      for (const cwd of [home, path.dirname(home)]) {
        const refused = await load({
          env: { HOME: path.join(home) },
          cwd,
          sandbox: { type: 'bubblewrap', read_only_paths: [REPO] },
        });
        expect(refused.tools).toEqual([]);
        expect(refused.problems.join()).toMatch(/holds the home folder/);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('under bubblewrap, close() ends the server and everything it started', {
    timeout: 30_000,
  }, async () => {
    const loaded = await load({ sandbox: 'bubblewrap', args: [SERVER], cwd: REPO });
    const who = JSON.parse(await textOf(loaded.tools, 'whoami')) as { env: Record<string, string> };
    const marker = who.env['KSADK_PROCESS_TREE']!;
    await textOf(loaded.tools, 'spawn_setsid_sleeper');
    await textOf(loaded.tools, 'spawn_daemon');
    expect(hostProcessesWith(`KSADK_PROCESS_TREE=${marker}`).length).toBeGreaterThanOrEqual(3);
    await loaded.close();
    expect(
      await until(() => hostProcessesWith(`KSADK_PROCESS_TREE=${marker}`).length === 0, 5000),
    ).toBe(true);
  });

  it('KSADK_MCP_STDIO_SANDBOX=bubblewrap isolates every server whose entry does not say', {
    timeout: 30_000,
  }, async () => {
    const loaded = await loadMcpToolsetsFromEnv({
      env: {
        KSADK_MCP_STDIO_SANDBOX: 'bubblewrap',
        KSADK_MCP_SERVERS: JSON.stringify([
          { name: 'fixture', command: process.execPath, args: [SERVER], cwd: REPO },
        ]),
      },
    });
    closers.push(loaded.close);
    expect(loaded.problems).toEqual([]);
    const who = JSON.parse(await textOf(loaded.tools, 'whoami')) as { pid: number };
    expect(who.pid).toBeLessThan(10);
    await expect(
      loadMcpToolsetsFromEnv({
        env: { KSADK_MCP_STDIO_SANDBOX: 'docker', KSADK_MCP_SERVERS: '[]' },
      }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
  });

  it('a bad sandbox entry is a configuration problem naming the field; no bwrap is a clear reason', async () => {
    const { problems } = parseMcpServerConfigs([
      { name: 'a', command: 'x', sandbox: 'docker' },
      {
        name: 'b',
        command: 'x',
        sandbox: { type: 'bubblewrap', read_only_paths: ['relative/path'] },
      },
      { name: 'c', command: 'x', sandbox: { type: 'bubblewrap', writable_paths: ['/'] } },
      { name: 'd', command: 'x', sandbox: { type: 'bubblewrap', mounts: [] } },
      { name: 'e', url: 'https://x.example/mcp', sandbox: 'bubblewrap' },
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/\[0\]\.sandbox: must be "none", "bubblewrap"/),
      expect.stringMatching(/\[1\]\.sandbox: readOnlyPaths must be a list of absolute paths/),
      expect.stringMatching(/\[2\]\.sandbox: writablePaths must not hold \//),
      expect.stringMatching(/\[3\]\.sandbox: has no field "mounts"/),
      expect.stringMatching(/\[4\]\.sandbox: only a stdio server/),
    ]);
    const missing = await load({
      sandbox: 'bubblewrap',
      env: { PATH: path.join(REPO, 'no-such-dir') },
    });
    expect(missing.tools).toEqual([]);
    expect(missing.problems.join()).toMatch(/needs the bwrap program, which was not found/);
  });
});
