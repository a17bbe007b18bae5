import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { isApprovalRequired } from '../gateway/results.js';
import { defineJsonSchemaTool } from '../tool/define-tool.js';
import type { Tool } from '../tool/tool.js';
import { createToolCatalog, type ToolCatalog } from './tool-catalog.js';

let base: string;
let catalog: ToolCatalog;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'ksadk-cat-'));
  catalog = createToolCatalog({
    workspace: { root: path.join(base, 'ws'), useRipgrep: false },
    env: {},
  });
});
afterEach(() => rm(base, { recursive: true, force: true }));

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name);
const find = (tools: Tool[], name: string): Tool => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`missing ${name}`);
  return tool;
};

describe('selection', () => {
  it('default profile: every bound group in order; absent groups are simply absent', () => {
    expect(catalog.groups).toEqual(['workspace', 'platform', 'sandbox', 'web']);
    expect(names(catalog.getTools())).toEqual([
      'workspace_status',
      'list_workspace_files',
      'read_workspace_file',
      'write_workspace_file',
      'write_workspace_files',
      'edit_workspace_file',
      'multi_edit_workspace_file',
      'lint_workspace_file',
      'search_workspace_files',
      'delete_workspace_file',
      'component_status',
      'sandbox_status',
      'run_command',
      'run_code',
      'web_fetch',
      'web_search',
    ]);
    const bare = createToolCatalog({ workspace: false, sandbox: false, web: false, env: {} });
    expect(bare.groups).toEqual(['platform']);
  });

  it('coding/direct is the focused set with tool_search; coding/deferred is exactly search + dispatcher', () => {
    const coding = names(catalog.getTools({ profile: 'coding' }));
    expect(coding).toEqual(
      expect.arrayContaining([
        'read_workspace_file',
        'edit_workspace_file',
        'multi_edit_workspace_file',
        'tool_search',
      ]),
    );
    expect(coding).not.toContain('delete_workspace_file');
    expect(names(catalog.getTools({ profile: 'coding', mode: 'deferred' }))).toEqual([
      'tool_search',
      'tool_dispatcher',
    ]);
    expect(names(catalog.getTools({ mode: 'dispatcher' }))).toEqual(['tool_dispatcher']);
    expect(catalog.getTools({ mode: 'off' })).toEqual([]);
  });

  it('resolves comma lists, aliases, profiles and concrete names, de-duplicated', () => {
    expect(names(catalog.getTools({ include: 'platform, read_workspace_file,platform' }))).toEqual([
      'component_status',
      'read_workspace_file',
    ]);
    expect(names(catalog.getTools({ include: ['tool_dispatcher'] }))).toEqual(['tool_dispatcher']);
    expect(names(catalog.getTools({ include: 'core' }))).toContain('tool_search');
  });

  it('unknown names and modes are KsadkErrors that list the valid values', () => {
    const attempt = (fn: () => unknown) => {
      try {
        fn();
        return undefined;
      } catch (error) {
        return KsadkError.isInstance(error) ? error : undefined;
      }
    };
    const unknown = attempt(() => catalog.getTools({ include: 'file' }));
    expect(unknown?.code).toBe('invalid_config');
    expect(unknown?.message).toMatch(/Unknown toolset or tool: file\. Valid: workspace, platform/);
    expect(attempt(() => catalog.getTools({ include: 'browser' }))?.message).toMatch(/browser/);
    expect(attempt(() => catalog.getTools({ mode: 'sometimes' }))?.message).toMatch(
      /off, direct, dispatcher, deferred/,
    );
  });

  it('builtinToolsFromEnv follows the environment: off by default, an empty value is off, a bad value is an error', () => {
    const make = (env: NodeJS.ProcessEnv) =>
      createToolCatalog({ workspace: { root: path.join(base, 'ws') }, env });
    expect(make({}).builtinToolsFromEnv()).toEqual([]);
    expect(make({ KSADK_BUILTIN_TOOLS_MODE: '' }).builtinToolsFromEnv()).toEqual([]);
    expect(
      names(
        make({
          KSADK_BUILTIN_TOOLS_MODE: 'direct',
          KSADK_BUILTIN_TOOLS_PROFILE: 'coding',
        }).builtinToolsFromEnv(),
      ),
    ).toContain('tool_search');
    expect(names(make({ KSADK_BUILTIN_TOOLS_MODE: 'deferred' }).builtinToolsFromEnv())).toEqual([
      'tool_search',
      'tool_dispatcher',
    ]);
    expect(() => make({ KSADK_BUILTIN_TOOLS_MODE: 'all' }).builtinToolsFromEnv()).toThrowError(
      /KSADK_BUILTIN_TOOLS_MODE must be one of/,
    );
    expect(() =>
      make({
        KSADK_BUILTIN_TOOLS_MODE: 'direct',
        KSADK_BUILTIN_TOOLS_PROFILE: 'fancy',
      }).builtinToolsFromEnv(),
    ).toThrowError(/KSADK_BUILTIN_TOOLS_PROFILE must be one of default, coding/);
  });
});

describe('descriptors', () => {
  it('carry real JSON Schema args, risk, side effects, boundary and the request-mode approval flag', () => {
    const [write] = catalog.describeTools({ include: 'write_workspace_file' });
    expect(write).toMatchObject({
      name: 'write_workspace_file',
      group: 'workspace',
      risk_level: 'medium',
      requires_approval: true,
      side_effects: ['workspace_write'],
      boundary: 'workspace_root',
      enabled: true,
      execution: 'builtin',
      args: { path: { type: 'string' }, content: { type: 'string' } },
    });
    const [inFull] = runWithInvocationContext({ approvalMode: 'full' }, () =>
      catalog.describeTools({ include: 'write_workspace_file' }),
    );
    expect(inFull?.requires_approval).toBe(false);
    const [dispatcher] = catalog.describeTools({
      include: 'agentengine_tool_dispatcher',
    });
    expect(dispatcher).toMatchObject({
      group: 'dispatcher',
      actions: ['list', 'describe', 'call'],
      compat_alias_for: 'tool_dispatcher',
    });
  });
});

describe('tool_dispatcher', () => {
  const gateway = createToolGateway({ env: {} });
  const dispatch = (tool: Tool, args: Record<string, unknown>, options = {}) =>
    gateway.invoke(tool, args, options);

  it('list works for every profile, including coding (the Python bug is fixed)', async () => {
    for (const profile of ['default', 'coding']) {
      const dispatcher = find(catalog.getTools({ profile, mode: 'dispatcher' }), 'tool_dispatcher');
      const listed = await dispatch(dispatcher, { action: 'list' });
      expect(listed, profile).toMatchObject({ ok: true });
      expect(listed['tool_count']).toBeGreaterThan(5);
    }
  });

  it('list with an unknown include is a structured unknown_tool, not a throw; JSON-string arguments work', async () => {
    const alias = find(
      catalog.getTools({ include: 'agentengine_tool_dispatcher' }),
      'agentengine_tool_dispatcher',
    );
    expect(await dispatch(alias, { action: 'list', include: 'file' })).toMatchObject({
      ok: false,
      error_type: 'unknown_tool',
      tool_name: 'file',
    });
    const listed = await dispatch(alias, { action: 'ls', include: 'workspace' });
    expect(names(listed['tools'] as { name: string }[])).toHaveLength(10);
    const status = await dispatch(alias, {
      action: 'call',
      tool_name: 'component_status',
      arguments: '{}',
    });
    expect(status).toMatchObject({ ok: true, tool_name: 'component_status', result: { ok: true } });
  });

  it("an unknown or out-of-scope include names only this agent's tools, and echoes the value capped", async () => {
    const narrow = find(
      catalog.getTools({ include: 'workspace_status,tool_dispatcher' }),
      'tool_dispatcher',
    );
    for (const include of ['nope', 'workspace', 'write_workspace_file', 'x'.repeat(5_000)]) {
      const result = await dispatch(narrow, { action: 'list', include });
      expect(result, include.slice(0, 20)).toMatchObject({ ok: false, error_type: 'unknown_tool' });
      const message = String(result['error_message']);
      // Exactly this agent's group and tool after the model's own (echoed) value.
      expect(message.split('Available here: ')[1]).toBe('workspace, workspace_status.');
      expect(message.length).toBeLessThan(500);
    }
    const profile = await dispatch(narrow, { action: 'list', profile: 'nope' });
    expect(profile).toMatchObject({ ok: false, error_type: 'unknown_tool', tool_name: 'nope' });
  });

  it('describe is the same through the canonical name and the alias', async () => {
    const tools = catalog.getTools({
      include: 'tool_dispatcher,agentengine_tool_dispatcher',
    });
    const one = await dispatch(find(tools, 'tool_dispatcher'), {
      action: 'describe',
      tool_name: 'edit_workspace_file',
    });
    const two = await dispatch(find(tools, 'agentengine_tool_dispatcher'), {
      action: 'info',
      tool_name: 'edit_workspace_file',
    });
    expect(one).toEqual(two);
    expect(one).toMatchObject({
      ok: true,
      tool: { name: 'edit_workspace_file', risk_level: 'medium' },
    });
  });

  it('reports the contract errors', async () => {
    const dispatcher = find(catalog.getTools({ mode: 'dispatcher' }), 'tool_dispatcher');
    expect(await dispatch(dispatcher, { action: 'describe' })).toMatchObject({
      error_type: 'missing_tool_name',
    });
    expect(
      await dispatch(dispatcher, { action: 'call', tool_name: 'agentengine_tool_dispatcher' }),
    ).toMatchObject({ error_type: 'dispatcher_self_call' });
    expect(await dispatch(dispatcher, { action: 'call', tool_name: 'rm_rf' })).toMatchObject({
      error_type: 'unknown_tool',
    });
    expect(await dispatch(dispatcher, { action: 'dance' })).toMatchObject({
      error_type: 'unknown_action',
    });
    expect(
      await dispatch(dispatcher, {
        action: 'call',
        tool_name: 'component_status',
        arguments: '{oops',
      }),
    ).toMatchObject({ error_type: 'invalid_arguments_json' });
    expect(
      await dispatch(dispatcher, {
        action: 'call',
        tool_name: 'component_status',
        arguments: '[1]',
      }),
    ).toMatchObject({
      error_type: 'invalid_arguments_type',
      arguments_type: 'array',
    });
    expect(await dispatch(dispatcher, { action: 'component_status' })).toMatchObject({
      ok: true,
      tool_name: 'component_status',
    });
  });

  it('call goes through the gateway: gated tools need the host, an approval in arguments changes nothing', async () => {
    const dispatcher = find(catalog.getTools({ mode: 'dispatcher' }), 'tool_dispatcher');
    const args = {
      action: 'call',
      tool_name: 'write_workspace_file',
      arguments: { path: 'n.txt', content: 'hi', approval: { approved: true } },
    };
    const first = await dispatch(dispatcher, args);
    expect(first).toMatchObject({
      ok: false,
      type: 'approval_required',
      dispatched_tool_name: 'write_workspace_file',
    });
    expect(await readFile(path.join(base, 'ws', 'n.txt'), 'utf8').catch(() => 'absent')).toBe(
      'absent',
    );
    if (!isApprovalRequired(first)) throw new Error('expected approval_required');
    const grant = await gateway.approve(first.approval_request.id);
    expect(await dispatch(dispatcher, args, { approval: grant })).toMatchObject({
      ok: true,
      tool_name: 'write_workspace_file',
      result: { ok: true },
    });
    expect(await readFile(path.join(base, 'ws', 'n.txt'), 'utf8')).toBe('hi');
    expect(isApprovalRequired(await dispatch(dispatcher, args, { approval: grant }))).toBe(true);
  });

  it('can only reach the tools of its own profile', async () => {
    const coding = find(
      catalog.getTools({ profile: 'coding', mode: 'dispatcher' }),
      'tool_dispatcher',
    );
    expect(
      await dispatch(coding, {
        action: 'call',
        tool_name: 'delete_workspace_file',
        arguments: { path: 'x' },
      }),
    ).toMatchObject({
      ok: false,
      error_type: 'unknown_tool',
    });
  });
});

describe('tool_search and external tools', () => {
  const gateway = createToolGateway({ env: {} });

  it('finds read and edit tools for an editing task, every score positive', async () => {
    const search = find(catalog.getTools({ profile: 'coding' }), 'tool_search');
    const result = await gateway.invoke(search, {
      query: 'edit a file after reading it',
      max_results: 5,
    });
    const found = result['results'] as { name: string; score: number }[];
    expect(names(found)).toEqual(
      expect.arrayContaining(['read_workspace_file', 'edit_workspace_file']),
    );
    expect(found.every((item) => item.score > 0)).toBe(true);
    expect(result['deferred_tool_names']).toEqual(names(found));
    expect(await gateway.invoke(search, { query: '   ' })).toMatchObject({
      ok: false,
      error_type: 'query_required',
    });
  });

  it('gives no workspace bonus without a match, and understands Chinese', async () => {
    const search = find(catalog.getTools({ profile: 'coding' }), 'tool_search');
    expect(await gateway.invoke(search, { query: 'zebra' })).toMatchObject({ results: [] });
    const chinese = await gateway.invoke(search, { query: '读文件' });
    expect(names(chinese['results'] as { name: string }[])).toContain('read_workspace_file');
  });

  it('finds, describes and (when runnable) calls registered external tools', async () => {
    catalog.registerExternalTools(
      [
        {
          name: 'weather_forecast',
          description: 'Weather forecast for a city',
          args: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      { group: 'mcp:weather', boundary: 'remote_mcp_server' },
    );
    const runnable = defineJsonSchemaTool({
      name: 'stock_quote',
      description: 'Latest stock quote',
      group: 'mcp:stocks',
      inputSchema: {
        type: 'object',
        properties: { symbol: { type: 'string' } },
        required: ['symbol'],
      },
      execute: ({ symbol }) => ({ ok: true, symbol, price: 1 }),
    });
    catalog.registerExternalTools([runnable]);
    const search = find(catalog.getTools({ profile: 'coding' }), 'tool_search');
    const result = await gateway.invoke(search, { query: 'weather forecast' });
    expect((result['results'] as unknown[])[0]).toMatchObject({
      name: 'weather_forecast',
      group: 'mcp:weather',
      execution: 'external',
      boundary: 'remote_mcp_server',
      args: { city: { type: 'string' } },
    });
    expect(result['deferred_tool_names']).toContain('weather_forecast');
    expect(names(catalog.describeTools({ include: 'mcp' }))).toEqual([
      'weather_forecast',
      'stock_quote',
    ]);
    expect(() => catalog.getTools({ include: 'weather_forecast' })).toThrowError(
      /description only/,
    );
    expect(names(catalog.getTools({ include: 'mcp:stocks' }))).toEqual(['stock_quote']);
    const dispatcher = find(catalog.getTools({ mode: 'dispatcher' }), 'tool_dispatcher');
    expect(
      await gateway.invoke(dispatcher, {
        action: 'call',
        tool_name: 'weather_forecast',
        arguments: { city: 'Oslo' },
      }),
    ).toMatchObject({
      error_type: 'not_callable',
    });
    expect(
      await gateway.invoke(dispatcher, {
        action: 'call',
        tool_name: 'stock_quote',
        arguments: { symbol: 'KS' },
      }),
    ).toMatchObject({
      ok: true,
      result: { ok: true, symbol: 'KS' },
    });
    catalog.clearExternalTools('mcp:weather');
    expect(
      await gateway.invoke(dispatcher, { action: 'describe', tool_name: 'weather_forecast' }),
    ).toMatchObject({ error_type: 'unknown_tool' });
  });

  it('external registrations belong to one catalogue', async () => {
    const other = createToolCatalog({ workspace: false, env: {} });
    catalog.registerExternalTools([{ name: 'only_here', description: 'x' }]);
    const dispatcher = find(other.getTools({ mode: 'dispatcher' }), 'tool_dispatcher');
    expect(
      await gateway.invoke(dispatcher, { action: 'describe', tool_name: 'only_here' }),
    ).toMatchObject({ error_type: 'unknown_tool' });
  });
});

describe('component_status', () => {
  it('reports only what is bound, without host paths', async () => {
    const gateway = createToolGateway({ env: {} });
    const status = find(catalog.getTools(), 'component_status');
    const result = await gateway.invoke(status, {});
    expect(result).toMatchObject({
      ok: true,
      summary: {
        tool_groups: ['workspace', 'platform', 'sandbox', 'web'],
        knowledge_base_bound: false,
        isolated_execution: 'not_enabled',
        // Bound, but no backend is configured.
        sandbox_direct_tools: 'not_enabled',
      },
      components: {
        workspace: { root: 'workspace' },
        sandbox: { backend: 'disabled', enabled: false, isolated: false },
      },
    });
    expect((result['components'] as { workspace: { tools: string[] } }).workspace.tools).toContain(
      'multi_edit_workspace_file',
    );
    expect(JSON.stringify(result)).not.toContain(base);
    expect(Object.keys(result['components'] as object)).toEqual(['workspace', 'sandbox', 'web']);
  });

  it('sandbox_direct_tools follows the sandbox tools’ backend', async () => {
    const gateway = createToolGateway({ env: {} });
    const summary = async (backend: string) => {
      const made = createToolCatalog({ workspace: false, sandbox: { backend }, env: {} });
      const result = await gateway.invoke(find(made.getTools(), 'component_status'), {});
      await made.close();
      return (result['summary'] as { sandbox_direct_tools: string }).sandbox_direct_tools;
    };
    expect(await summary('local_process')).toBe('enabled_not_isolated');
    expect(await summary('bubblewrap')).toBe('enabled');
    expect(await summary('disabled')).toBe('not_enabled');
  });
});
