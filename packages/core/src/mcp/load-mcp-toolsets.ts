import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import type { ToolGateway } from '../gateway/gateway-types.js';
import { createToolNameRegistry } from '../schema/tool-names.js';
import type { Tool } from '../tool/tool.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import {
  loadMcpServerConfigsFromEnv,
  type McpServerOptions,
  type McpServersObject,
  mcpDedupeKey,
  mcpToolsEnabled,
  parseMcpServerConfigs,
} from './mcp-config.js';
import { defaultMcpCredentialId } from './mcp-oauth-config.js';
import {
  type McpServerRequestOptions,
  SERVER_REQUEST_OPTIONS,
  serverRequestOptions,
} from './mcp-server-requests.js';
import { createMcpToolset, type McpToolset } from './mcp-toolset.js';
import { type McpStdioSandboxOption, stdioSandboxFromEnv } from './stdio-sandbox-config.js';

/** Options for {@link loadMcpToolsets}. */
export interface LoadMcpToolsetsOptions extends McpServerRequestOptions {
  /** Throw on the first configuration problem, unreachable server or name conflict instead of reporting it. */
  strict?: boolean;
  /** The `fetch` the HTTP transports use. */
  fetch?: typeof fetch;
  /**
   * Isolation of stdio servers whose entry does not name one (`sandbox`). From the environment:
   * `KSADK_MCP_STDIO_SANDBOX`. @default 'none'
   */
  stdioSandbox?: McpStdioSandboxOption;
  /** The gateway whose credential store holds the users' tokens for servers with `oauth`. */
  gateway?: ToolGateway;
}

/** Everything that came out of loading MCP servers. */
export interface McpLoadResult {
  /** One toolset per reachable, distinct server, in configuration order. */
  readonly toolsets: McpToolset[];
  /**
   * The servers that could not be reached or started, stopped, with what they left behind
   * (`diagnostics()`: the exit, the stderr tail) for a host to show. Their tools are not in `tools`;
   * a host that asks one for its tools again starts it again (`close()` stops it).
   */
  readonly unavailable: McpToolset[];
  /** Their tools, in order, with names unique across servers. */
  readonly tools: Tool[];
  /** Every configuration problem, skipped duplicate, unreachable server and name conflict. */
  readonly problems: string[];
  /** Ends every session and stops every stdio server (with its process group). */
  close(): Promise<void>;
}

/**
 * Connects to MCP servers (concurrently; stdio servers are started) and collects their tools.
 * `configs` is a list of servers or the Claude Desktop / Cursor `{ mcpServers: { … } }` object.
 * Servers are de-duplicated by `url|prefix` (stdio: command, arguments, cwd and prefix); a server
 * that cannot be reached or started is reported and skipped; two servers offering the same tool
 * name are both kept, the later one with a hash suffix, and the collision reported.
 *
 * @example
 * ```ts
 * const mcp = await loadMcpToolsets({
 *   mcpServers: {
 *     github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: token } },
 *     docs: { url: 'https://docs.example.com/mcp' },
 *   },
 * });
 * for (const problem of mcp.problems) console.warn(problem);
 * // … hand mcp.tools to your framework adapter, then:
 * await mcp.close(); // ends the sessions and stops the stdio servers
 * ```
 *
 * @throws {KsadkError} `invalid_config` with `strict`, listing what went wrong.
 */
export async function loadMcpToolsets(
  configs: readonly McpServerOptions[] | McpServersObject | unknown,
  options: LoadMcpToolsetsOptions = {},
): Promise<McpLoadResult> {
  checkOptions(
    options,
    { ...SERVER_REQUEST_OPTIONS, strict: true, fetch: true, stdioSandbox: true, gateway: true },
    'loadMcpToolsets()',
  );
  const parsed = parseMcpServerConfigs(configs, 'mcp servers');
  const problems = parsed.problems.map((problem) => problem.message);
  const names = createToolNameRegistry();
  const seen = new Set<string>();
  const credentialIds = new Set<string>();
  const candidates: McpToolset[] = [];
  for (const config of parsed.configs) {
    const key = mcpDedupeKey(config);
    if (seen.has(key)) {
      const same =
        config.type === 'stdio' ? 'command, arguments, cwd and prefix' : 'url and prefix';
      problems.push(`MCP server ${config.name}: same ${same} as an earlier server, skipped`);
      continue;
    }
    seen.add(key);
    // Tokens are stored by credential id: two servers under one id would get each other's.
    if (config.type !== 'stdio' && config.oauth) {
      const id = config.oauth.credentialId ?? defaultMcpCredentialId(config.name);
      if (credentialIds.has(id)) {
        problems.push(
          `MCP server ${config.name}: OAuth credential id ${id} is already another server's; give it its own oauth.credentialId. Skipped`,
        );
        continue;
      }
      credentialIds.add(id);
    }
    candidates.push(
      createMcpToolset(config, {
        names,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.stdioSandbox ? { stdioSandbox: options.stdioSandbox } : {}),
        ...(options.gateway ? { gateway: options.gateway } : {}),
        ...serverRequestOptions(options),
      }),
    );
  }
  const reached = await Promise.allSettled(candidates.map((toolset) => toolset.prefetch()));
  const toolsets: McpToolset[] = [];
  const unavailable: McpToolset[] = [];
  const tools: Tool[] = [];
  for (const [index, toolset] of candidates.entries()) {
    const outcome = reached[index]!;
    if (outcome.status === 'rejected') {
      problems.push(
        `MCP server ${toolset.name} is ${toolset.diagnostics().transport === 'stdio' ? 'unavailable' : 'unreachable'}: ${modelSafeErrorMessage(outcome.reason)}`,
      );
      await toolset.close();
      unavailable.push(toolset);
      continue;
    }
    tools.push(...(await toolset.tools()));
    problems.push(
      ...toolset.problems.map(
        (problem) => `MCP server ${problem.server}, tool ${problem.tool}: ${problem.message}`,
      ),
    );
    toolsets.push(toolset);
  }
  for (const conflict of names.conflicts) {
    if (conflict.kind === 'collision') {
      problems.push(
        `MCP tool name ${conflict.original} collides with ${conflict.existing}; it is offered as ${conflict.name}`,
      );
    }
  }
  const close = async (): Promise<void> => {
    await Promise.allSettled([...toolsets, ...unavailable].map((toolset) => toolset.close()));
  };
  if (options.strict && problems.length > 0) {
    await close();
    throw new KsadkError('invalid_config', `MCP loading failed: ${problems.join('; ')}`, {
      details: { problems },
    });
  }
  return { toolsets, unavailable, tools, problems, close };
}

/**
 * Loads the servers of `KSADK_MCP_SERVERS` unless `KSADK_ENABLE_MCP_TOOLS` turns MCP off.
 *
 * @throws {KsadkError} `invalid_config` with `strict`.
 */
export async function loadMcpToolsetsFromEnv(
  options: LoadMcpToolsetsOptions & { env?: NodeJS.ProcessEnv } = {},
): Promise<McpLoadResult> {
  const { env = process.env, ...loadOptions } = options;
  if (!mcpToolsEnabled(env))
    return {
      toolsets: [],
      unavailable: [],
      tools: [],
      problems: [],
      close: async () => undefined,
    };
  const { configs, problems } = loadMcpServerConfigsFromEnv({
    env,
    strict: options.strict ?? false,
  });
  const loaded = await loadMcpToolsets(configs, {
    ...loadOptions,
    stdioSandbox: loadOptions.stdioSandbox ?? stdioSandboxFromEnv(env),
  });
  return {
    ...loaded,
    problems: [...problems.map((problem) => problem.message), ...loaded.problems],
  };
}
