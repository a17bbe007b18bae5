import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import {
  loadMcpToolsets,
  loadMcpToolsetsFromEnv,
  type McpLoadResult,
} from './load-mcp-toolsets.js';
import { type McpServerConfig, mcpDedupeKey, parseMcpServerConfigs } from './mcp-config.js';
import { stdioServerEnv } from './stdio-connection.js';

const SERVER = fileURLToPath(new URL('./test-fixtures/stdio-server.mjs', import.meta.url));
const loaded: McpLoadResult[] = [];
afterEach(async () => {
  await Promise.all(loaded.splice(0).map((result) => result.close()));
});

describe('stdio and mcpServers configuration', () => {
  it('reads stdio entries next to url entries, with their defaults', () => {
    const { configs, problems } = parseMcpServerConfigs(
      JSON.stringify([
        { name: 'files', command: 'npx', args: ['-y', 'server-files', '/data'], cwd: 'sub/dir' },
        { name: 'web', url: 'https://example.com/mcp', tool_name_prefix: 'web' },
        { name: 'bare', command: ' uvx ', env: { TOKEN: 't-1234567890' }, timeout_ms: 500 },
      ]),
    );
    expect(problems).toEqual([]);
    expect(configs).toEqual([
      {
        name: 'files',
        type: 'stdio',
        command: 'npx',
        args: ['-y', 'server-files', '/data'],
        env: {},
        cwd: path.resolve('sub/dir'),
        toolFilter: [],
        timeoutMs: 60_000,
        riskLevel: 'medium',
      },
      {
        name: 'web',
        type: 'http',
        url: 'https://example.com/mcp',
        toolNamePrefix: 'web',
        toolFilter: [],
        timeoutMs: 60_000,
        riskLevel: 'medium',
      },
      {
        name: 'bare',
        type: 'stdio',
        command: 'uvx',
        args: [],
        env: { TOKEN: 't-1234567890' },
        toolFilter: [],
        timeoutMs: 500,
        riskLevel: 'medium',
      },
    ]);
  });

  it('accepts the Claude Desktop / Cursor mcpServers object as it is: names from keys, type, disabled entries skipped', () => {
    const desktop = {
      mcpServers: {
        filesystem: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
        },
        github: {
          type: 'stdio',
          command: 'docker',
          args: [
            'run',
            '-i',
            '--rm',
            '-e',
            'GITHUB_PERSONAL_ACCESS_TOKEN',
            'ghcr.io/github/server',
          ],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret0123456789' },
          autoApprove: [],
        },
        remote: {
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer abc-123456' },
        },
        legacy: { type: 'sse', url: 'https://old.example.com/sse' },
        streamable: { type: 'streamable-http', url: 'https://new.example.com/mcp' },
        off: { command: 'npx', disabled: true, args: 'not even a list' },
      },
      globalShortcut: 'Ctrl+Space',
    };
    for (const raw of [desktop, JSON.stringify(desktop)]) {
      const { configs, problems } = parseMcpServerConfigs(raw);
      expect(configs.map((config) => [config.name, config.type])).toEqual([
        ['filesystem', 'stdio'],
        ['github', 'stdio'],
        ['remote', 'http'],
        ['legacy', 'sse'],
        ['streamable', 'http'],
      ]);
      expect(problems).toEqual([
        {
          index: -1,
          field: 'globalShortcut',
          message: 'KSADK_MCP_SERVERS.globalShortcut: unknown field, ignored',
        },
      ]);
    }
  });

  it('reports each bad entry with position, name, field and reason, never a secret, and keeps the good ones', () => {
    const secrets = ['env-secret-value-42', 'arg-secret-token-77', 'hdr-secret-9f8e7d'];
    const { configs, problems } = parseMcpServerConfigs({
      mcpServers: {
        good: { command: 'node', args: ['server.js'] },
        emptyCommand: { command: '  ' },
        badArgs: { command: 'npx', args: ['--token', secrets[1], 42] },
        badEnv: { command: 'npx', env: { API_KEY: secrets[0], PORT: 8080 } },
        badEnvName: { command: 'npx', env: { 'A=B': secrets[0] } },
        both: { command: 'npx', url: 'https://x.example/mcp' },
        neither: { args: ['x'] },
        stdioWithHeaders: { command: 'npx', headers: { 'X-Key': secrets[2] } },
        urlWithEnv: { url: 'https://x.example/mcp', env: { API_KEY: secrets[0] } },
        wrongType: { type: 'stdio', url: 'https://x.example/mcp' },
        unknownType: { type: 'websocket', url: 'wss://x.example/mcp' },
        renamed: { name: 'other', command: 'npx' },
        '': { command: 'npx' },
        'odd name!': { command: 5 },
        notAnObject: 'npx server',
      },
    });
    expect(configs.map((config) => config.name)).toEqual(['good']);
    expect(problems.map((problem) => [problem.index, problem.name, problem.field])).toEqual([
      [1, 'emptyCommand', 'command'],
      [2, 'badArgs', 'args'],
      [3, 'badEnv', 'env'],
      [4, 'badEnvName', 'env'],
      [5, 'both', 'command'],
      [6, 'neither', 'url'],
      [7, 'stdioWithHeaders', 'headers'],
      [8, 'urlWithEnv', 'env'],
      [9, 'wrongType', 'type'],
      [10, 'unknownType', 'type'],
      [11, 'renamed', 'name'],
      [12, undefined, undefined],
      [13, 'odd name!', 'command'],
      [14, 'notAnObject', undefined],
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'KSADK_MCP_SERVERS.mcpServers.emptyCommand.command: must be a non-empty string',
      'KSADK_MCP_SERVERS.mcpServers.badArgs.args: must be a list of strings',
      'KSADK_MCP_SERVERS.mcpServers.badEnv.env: PORT must be a string',
      'KSADK_MCP_SERVERS.mcpServers.badEnvName.env: has an invalid variable name "A=B"',
      'KSADK_MCP_SERVERS.mcpServers.both.command: give url (an HTTP server) or command (a stdio server), not both',
      'KSADK_MCP_SERVERS.mcpServers.neither.url: give url (an HTTP server) or command (a stdio server)',
      'KSADK_MCP_SERVERS.mcpServers.stdioWithHeaders.headers: only an HTTP server (one with url) takes this field',
      'KSADK_MCP_SERVERS.mcpServers.urlWithEnv.env: only a stdio server (one with command) takes this field',
      'KSADK_MCP_SERVERS.mcpServers.wrongType.type: a stdio server needs command, not url',
      'KSADK_MCP_SERVERS.mcpServers.unknownType.type: must be one of http, streamable-http, streamableHttp, sse, stdio',
      'KSADK_MCP_SERVERS.mcpServers.renamed.name: must be the same as its key in mcpServers, or absent',
      'KSADK_MCP_SERVERS.mcpServers[""]: the server name (its key) must be non-empty',
      'KSADK_MCP_SERVERS.mcpServers["odd name!"].command: must be a non-empty string',
      'KSADK_MCP_SERVERS.mcpServers.notAnObject: must be an object',
    ]);
    const text = JSON.stringify(problems);
    for (const secret of secrets) expect(text).not.toContain(secret);
    // Array entries are located by index.
    expect(
      parseMcpServerConfigs([{ name: 'a', command: 'x', args: 'y' }], 'servers').problems,
    ).toEqual([
      { index: 0, name: 'a', field: 'args', message: 'servers[0].args: must be a list of strings' },
    ]);
    expect(parseMcpServerConfigs({ mcpServers: [] }).problems[0]?.message).toBe(
      'KSADK_MCP_SERVERS.mcpServers must be an object of servers',
    );
  });

  it('de-duplicates stdio servers by command, arguments, cwd and prefix — not by environment', () => {
    const key = (entry: Record<string, unknown>) =>
      mcpDedupeKey(
        parseMcpServerConfigs([{ name: 'x', command: 'npx', ...entry }])
          .configs[0] as McpServerConfig,
      );
    const base = key({ args: ['a'] });
    expect(key({ args: ['a'], env: { TOKEN: 'other' } })).toBe(base);
    expect(key({ args: ['a'], cwd: '/srv' })).not.toBe(base);
    expect(key({ args: ['a', 'b'] })).not.toBe(base);
    expect(key({ args: ['a b'] })).not.toBe(key({ args: ['a', 'b'] }));
    expect(key({ args: ['a'], toolNamePrefix: 'p' })).not.toBe(base);
  });

  it('builds the child environment from PATH, HOME and the entry only', () => {
    const parent = { PATH: '/bin', HOME: '/home/me', SECRET_TOKEN: 'x', LANG: 'C' };
    expect(stdioServerEnv({ env: { A: '1' } }, parent)).toEqual({
      PATH: '/bin',
      HOME: '/home/me',
      A: '1',
    });
    // The entry's own PATH wins.
    expect(stdioServerEnv({ env: { PATH: '/opt/bin' } }, parent)).toEqual({
      PATH: '/opt/bin',
      HOME: '/home/me',
    });
  });

  it('loads an mcpServers object (in code and as KSADK_MCP_SERVERS), reporting a duplicate stdio server', async () => {
    const servers = {
      mcpServers: {
        one: { command: process.execPath, args: [SERVER], toolFilter: ['echo'] },
        again: { command: process.execPath, args: [SERVER], env: { OTHER: '1' } },
      },
    };
    const inCode = await loadMcpToolsets(servers);
    loaded.push(inCode);
    expect(inCode.toolsets.map((toolset) => toolset.name)).toEqual(['one']);
    expect(inCode.problems).toEqual([
      'MCP server again: same command, arguments, cwd and prefix as an earlier server, skipped',
    ]);
    const gateway = createToolGateway({ approvalMode: 'full', env: {} });
    expect(await gateway.invoke(inCode.tools[0]!, { message: 'm' })).toMatchObject({
      text: 'echo:m',
    });
    const fromEnv = await loadMcpToolsetsFromEnv({
      env: { KSADK_MCP_SERVERS: JSON.stringify(servers) },
    });
    loaded.push(fromEnv);
    expect(fromEnv.tools.map((tool) => tool.name)).toEqual(['echo']);
  });
});
