import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type McpTestServer, startMcpTestServer } from '@ksadk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ksadk, ksadkOnTerminal } from './test-fixtures/run-ksadk.js';

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

let dir: string;
let docs: McpTestServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-cli-'));
  docs = await startMcpTestServer({
    tools: [
      {
        name: 'search.issues',
        description: 'Searches the issues.',
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
        handler: () => ({ content: [{ type: 'text', text: 'none' }] }),
      },
      {
        name: 'set_labels',
        description: 'Sets labels.',
        inputSchema: {
          type: 'object',
          properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
        },
        handler: () => ({ content: [{ type: 'text', text: 'ok' }] }),
      },
    ],
  });
});
afterAll(async () => {
  await docs?.close();
  await rm(dir, { recursive: true, force: true });
});

const SECRET = 'tok_live_7f3c9a1b2d4e5f60';

describe('ksadk tools', () => {
  it('what a loader gives, in order (memory → skills → built-ins → MCP), names mapped back, each framework’s schema', {
    timeout: 60_000,
  }, async () => {
    const skills = path.join(dir, 'skills');
    await rm(skills, { recursive: true, force: true });
    await writeFile(path.join(dir, 'placeholder'), '');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.join(skills, 'notes'), { recursive: true });
    await writeFile(
      path.join(skills, 'notes', 'SKILL.md'),
      '---\nname: notes\ndescription: Keep notes tidy.\n---\nTidy the notes.\n',
    );
    const env = {
      KSADK_LTM_BACKEND: 'memory',
      KSADK_LOCAL_SKILLS_DIR: skills,
      KSADK_MCP_SERVERS: JSON.stringify([{ name: 'docs', url: docs.url, api_key: SECRET }]),
    };
    const run = await ksadk(['tools', '--include', 'focused', '--json'], { env, cwd: dir });
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as {
      tools: {
        name: string;
        originalName?: string;
        source: string;
        schemas: Record<string, { ok: boolean; strict?: boolean; reason?: string; zod?: boolean }>;
      }[];
      warnings: string[];
    };
    const sources = [...new Set(report.tools.map((tool) => tool.source))];
    expect(sources).toEqual(['memory', 'skills', 'builtin', 'mcp']);
    const search = report.tools.find((tool) => tool.originalName === 'search.issues')!;
    expect(search.name).toBe('search_issues');
    expect(Object.keys(search.schemas)).toEqual([
      'openai',
      'gemini',
      'anthropic',
      'ai-sdk',
      'langchain',
    ]);
    const labels = report.tools.find(
      (tool) => tool.originalName === 'set_labels' || tool.name.endsWith('set_labels'),
    )!;
    expect(labels.schemas['openai']).toMatchObject({
      ok: true,
      strict: false,
      reason: expect.stringMatching(/open object/),
    });
    expect(
      report.tools.find((tool) => tool.name === 'read_workspace_file')?.schemas['langchain'],
    ).toMatchObject({ zod: true });
    expect(run.stdout).not.toContain(SECRET);
    expect(run.code).toBe(0);
    // Listing wrote nothing where it ran.
    expect((await readdir(dir)).sort()).toEqual(['placeholder', 'skills']);

    const elsewhere = await mkdtemp(path.join(tmpdir(), 'ksadk-cli-empty-'));
    const openai = await ksadk(
      ['tools', '--include', 'read_workspace_file', '--framework', 'openai'],
      {
        cwd: elsewhere,
      },
    );
    await rm(elsewhere, { recursive: true, force: true });
    expect(openai.stdout).toMatch(/^1\. read_workspace_file low · builtin\n {3}openai: strict\n/);
    expect(openai.stdout).not.toMatch(/gemini:|anthropic:/);
  });

  it('shows progress on a terminal while an MCP server takes more than a second', {
    timeout: 60_000,
  }, async () => {
    const slowStart = path.join(
      path.dirname(new URL(import.meta.url).pathname),
      'test-fixtures',
      'slow-start.mjs',
    );
    const env = {
      KSADK_MCP_SERVERS: JSON.stringify([
        { name: 'slow', command: process.execPath, args: [slowStart, EVERYTHING, 'stdio'] },
      ]),
    };
    const shown = await ksadkOnTerminal(
      ['tools', '--include', 'workspace_status', '--framework', 'openai'],
      {
        env,
        timeoutMs: 45_000,
      },
    );
    // The reference server offers a tool KsADK leaves out (an MCP task): a problem found, exit 1.
    expect(shown.code).toBe(1);
    expect(shown.output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏].*loading the tools/);
    expect(shown.output).toContain('simulate-research-query: it can only run as an MCP task');
    expect(shown.output).toContain('get-sum');
    const piped = await ksadk(['tools', '--include', 'workspace_status', '--framework', 'openai'], {
      env,
      timeoutMs: 45_000,
    });
    expect(piped.stderr).not.toMatch(/loading the tools/);
    expect(piped.stdout).toContain('get-sum');
  });
});

describe('ksadk mcp probe', () => {
  it('connects to each server (the reference server over stdio, HTTP, one that fails): tools, schemas, timings, stderr; exit 1 on a failure', {
    timeout: 90_000,
  }, async () => {
    const config = path.join(dir, 'mcp.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
          docs: { url: docs.url },
          broken: {
            command: process.execPath,
            args: [
              '-e',
              `console.error('broken: bad API_TOKEN ' + process.env.API_TOKEN); process.exit(3)`,
            ],
            env: { API_TOKEN: SECRET },
          },
        },
      }),
    );
    const run = await ksadk(['mcp', 'probe', '--config', config, '--json'], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      servers: {
        name: string;
        ok: boolean;
        ms: number;
        transport: string;
        tools: { name: string }[];
        error?: string;
        stderrTail?: string;
      }[];
    };
    const byName = Object.fromEntries(report.servers.map((server) => [server.name, server]));
    expect(byName['everything']).toMatchObject({ ok: true, transport: 'stdio' });
    expect(byName['everything']!.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum']),
    );
    expect(byName['docs']).toMatchObject({ ok: true, transport: 'streamable-http' });
    expect(byName['broken']).toMatchObject({
      ok: false,
      error: expect.stringMatching(/exited with code 3/),
    });
    expect(byName['broken']!.stderrTail).toContain('broken: bad API_TOKEN');
    expect(run.stdout).not.toContain(SECRET);
    for (const server of report.servers) expect(server.ms).toBeGreaterThanOrEqual(0);

    const one = await ksadk(['mcp', 'probe', '--config', config, 'docs']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/✓ docs streamable-http · \d+ ms · 2 tool\(s\)/);
    expect(one.stdout).toContain('(← search.issues)');
    expect((await ksadk(['mcp', 'probe', '--config', config, 'nobody'])).stdout).toContain(
      'no server named nobody',
    );
    expect((await ksadk(['mcp', 'probe', '--config', path.join(dir, 'missing.json')])).code).toBe(
      1,
    );
    expect((await ksadk(['mcp', 'probe', '--config', config, '--args', '{bad'])).code).toBe(2);
  });

  it('--call runs one call through the gateway; a gated one asks on the terminal, and without one runs nothing', {
    timeout: 90_000,
  }, async () => {
    const config = path.join(dir, 'everything.json');
    await writeFile(
      config,
      JSON.stringify([
        {
          name: 'everything',
          command: process.execPath,
          args: [EVERYTHING, 'stdio'],
          env: { SERVICE_TOKEN: SECRET },
        },
      ]),
    );
    // MCP tools ask before they run (medium risk): on pipes there is nobody to ask.
    const piped = await ksadk([
      'mcp',
      'probe',
      '--config',
      config,
      '--call',
      'get-sum',
      '--args',
      '{"a":2,"b":3}',
    ]);
    expect(piped.code).toBe(1);
    expect(piped.stdout).toContain('needs approval and there is no terminal to ask on: not run.');
    expect(piped.stdout).toContain('"type": "approval_required"');
    // On a terminal: yes runs it once; no rejects it.
    const yes = await ksadkOnTerminal(
      ['mcp', 'probe', '--config', config, '--call', 'get-sum', '--args', '{"a":2,"b":3}'],
      {
        answers: ['y'],
        prompt: /\[y\/N\]\s*$/,
        timeoutMs: 60_000,
      },
    );
    expect(yes.output).toMatch(/get-sum needs approval \(medium risk/);
    expect(yes.output).toMatch(/"ok": true[\s\S]*5/);
    expect(yes.code).toBe(0);
    const no = await ksadkOnTerminal(
      ['mcp', 'probe', '--config', config, '--call', 'get-sum', '--args', '{"a":2,"b":3}'],
      {
        answers: ['n'],
        prompt: /\[y\/N\]\s*$/,
        timeoutMs: 60_000,
      },
    );
    expect(no.output).toContain('"error_type": "approval_rejected"');
    expect(no.code).toBe(1);
    // A secret the server echoes back is redacted.
    const env = await ksadkOnTerminal(['mcp', 'probe', '--config', config, '--call', 'get-env'], {
      answers: ['y'],
      prompt: /\[y\/N\]\s*$/,
      timeoutMs: 60_000,
    });
    expect(env.output).toContain('SERVICE_TOKEN');
    expect(env.output).not.toContain(SECRET);
  });
});
