import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { storedTokenLookupOf } from '../gateway/gateway-credentials.js';
import type { ToolGateway } from '../gateway/gateway-types.js';
import { createToolNameRegistry, type ToolNameRegistry } from '../schema/tool-names.js';
import type { Tool } from '../tool/tool.js';
import { createHttpConnection } from './http-connection.js';
import { type McpServerConfig, mcpDedupeKey } from './mcp-config.js';
import type { McpConnection, McpToolsetDiagnostics } from './mcp-connection.js';
import { mcpFailureOf } from './mcp-failure.js';
import { createMcpOAuthAccess, signInTool } from './mcp-oauth-access.js';
import { listPages } from './mcp-pages.js';
import {
  type McpToolProblem,
  type RemoteToolsContext,
  toRemoteTools,
  usableTools,
} from './mcp-remote-tools.js';
import {
  createServerRequests,
  type McpServerRequestOptions,
  SERVER_REQUEST_OPTIONS,
} from './mcp-server-requests.js';
import { createSessionPool } from './mcp-session-pool.js';
import { callMcpTool, type McpCallContext } from './mcp-tool-call.js';
import { listRemoteTools, type RemoteTool } from './mcp-tool-listing.js';
import { createStdioConnection } from './stdio-connection.js';
import type { McpStdioSandboxOption } from './stdio-sandbox-config.js';

export type { McpToolProblem } from './mcp-remote-tools.js';

/** Options for {@link createMcpToolset}. */
export interface McpToolsetOptions extends McpServerRequestOptions {
  /** Names handed out across several toolsets (so collisions between servers are caught). @default one per toolset */
  names?: ToolNameRegistry;
  /** The `fetch` the HTTP transports use. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Client name sent at initialisation. @default 'ksadk' */
  clientName?: string;
  /** Isolation of a stdio server whose entry does not name one. @default 'none' */
  stdioSandbox?: McpStdioSandboxOption;
  /**
   * The gateway whose credential store holds the users' tokens: needed by a server with `oauth`
   * (its tools are listed as the current user). `loadAgentTools` passes its own.
   */
  gateway?: ToolGateway;
}

/** A resource a server offers (`resources/list`). */
export interface McpResource {
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** A prompt a server offers (`prompts/list`). */
export interface McpPrompt {
  readonly name: string;
  readonly description?: string;
  readonly arguments?: readonly { name: string; description?: string; required?: boolean }[];
}

/**
 * One MCP server's tools, over one pooled session: Streamable HTTP (or legacy SSE) for a URL,
 * one child process for a stdio server.
 */
export interface McpToolset {
  /** The server's configured name. */
  readonly name: string;
  /** `mcp:<name>`. */
  readonly group: string;
  /** What servers are de-duplicated by (see {@link mcpDedupeKey}). */
  readonly dedupeKey: string;
  /** Connects (once) and lists the tools (every page); cached after the first success. */
  tools(): Promise<Tool[]>;
  /** Lists again (new tools, changed schemas). */
  refresh(): Promise<Tool[]>;
  /** Connects and lists without naming yet (lets several servers be contacted at once while names stay deterministic). */
  prefetch(): Promise<void>;
  /** Tools of the server that were left out (bad schema, `approval` argument, name conflict). */
  readonly problems: readonly McpToolProblem[];
  /**
   * The connection's state for the host: transport, stdio process id, starts and crashes, the
   * last exit, the restart back-off and the tail of the server's stderr. Never shown to the model.
   */
  diagnostics(): McpToolsetDiagnostics;
  /**
   * The server's resources (every page, at most 1,000), for the host to attach to a conversation —
   * not model tools.
   */
  listResources(): Promise<McpResource[]>;
  /** Reads one resource (`resources/read`): its contents as the server sends them. */
  readResource(uri: string): Promise<{ contents: readonly Record<string, unknown>[] }>;
  /** The server's prompts (every page, at most 1,000). */
  listPrompts(): Promise<McpPrompt[]>;
  /** Renders one prompt (`prompts/get`) with its arguments. */
  getPrompt(
    name: string,
    args?: Record<string, string>,
  ): Promise<{ description?: string; messages: readonly Record<string, unknown>[] }>;
  /** Ends the session (a stdio server is stopped with its process group). The toolset reconnects if used again. */
  close(): Promise<void>;
}

/**
 * Creates the toolset of one MCP server: one pooled session (not a client per call) —
 * Streamable HTTP for a URL (legacy SSE when the server answers Streamable HTTP's `initialize`
 * with a 4xx), or one child process for a stdio server —, `tools/list` across pages,
 * `tool_filter` on the server's own names, `<prefix>_<tool>` names made valid by the shared
 * sanitiser, the server's JSON Schemas as the tools' schemas, and every tool at the configured
 * risk (medium by default) so the gateway gates it.
 *
 * A `tools/call` is never replayed. An expired HTTP session (404) answers
 * `{ ok: false, error_type: 'mcp_session_expired', retryable: true }` and the next call uses a
 * fresh session; an unreachable server, or a stdio server that stops while a call runs, answers
 * `mcp_unavailable` (`retryable`) and the next call reconnects — a stdio server is restarted
 * with back-off (0.5 s, 1 s, 2 s… up to 30 s; reset after a minute of health). `tools/list` is
 * retried after a lost session.
 *
 * @example
 * ```ts
 * const { configs } = parseMcpServerConfigs([{ name: 'files', command: 'npx', args: ['-y', 'my-mcp-server'] }]);
 * const toolset = createMcpToolset(configs[0]!);
 * const tools = await toolset.tools(); // starts the server
 * console.log(toolset.diagnostics().stderrTail);
 * await toolset.close(); // stops it and everything it started
 * ```
 */
export function createMcpToolset(
  config: McpServerConfig,
  options: McpToolsetOptions = {},
): McpToolset {
  checkOptions(
    options,
    {
      ...SERVER_REQUEST_OPTIONS,
      names: true,
      fetch: true,
      clientName: true,
      stdioSandbox: true,
      gateway: true,
    },
    'createMcpToolset()',
  );
  const requests = createServerRequests(config.name, options);
  const connection = connectionOf(config, options, requests);
  const pool = createSessionPool(connection);
  const calls: McpCallContext = {
    config,
    pool,
    requests,
    resetTimeoutOnProgress: options.resetTimeoutOnProgress === true,
  };
  const oauth = oauthAccessOf(config, options);
  const remote: RemoteToolsContext = {
    config,
    group: `mcp:${config.name}`,
    names: options.names ?? createToolNameRegistry(),
    given: new Map(),
    problems: [],
    call: (originalName, args, context) =>
      oauth
        ? oauth.access.asUser(context, (session) =>
            callMcpTool(originalName, args, context, {
              ...calls,
              pool: session.pool,
              requests: session.requests,
            }),
          )
        : callMcpTool(originalName, args, context, calls),
  };
  const listAll = () => listRemoteTools(pool, connection, config.timeoutMs);
  const offered = async (listed: RemoteTool[]) =>
    usableTools(toRemoteTools(listed, remote), remote);
  let cached: Tool[] | undefined;
  let listing: Promise<RemoteTool[]> | undefined;
  const client = async () => {
    if (!oauth) return (await pool.current()).client;
    const current = await oauth.access.currentToken();
    if (!current)
      throw new KsadkError(
        'credential_required',
        `MCP server ${config.name} requires the user to sign in first (its sign-in tool, or a call of one of its tools).`,
      );
    return (await oauth.access.sessionOf(current.invocation, current.token).pool.current()).client;
  };
  const timeout = { timeout: config.timeoutMs };

  return {
    name: config.name,
    group: remote.group,
    dedupeKey: mcpDedupeKey(config),
    problems: remote.problems,
    async prefetch() {
      if (oauth) {
        await oauth.access.spec();
        return;
      }
      listing ??= listAll();
      try {
        await listing;
      } catch (error) {
        listing = undefined;
        throw error;
      }
    },
    async tools() {
      if (oauth) return oauth.tools(remote, offered);
      if (!cached) {
        listing ??= listAll();
        try {
          cached = await offered(await listing);
        } finally {
          listing = undefined;
        }
      }
      return cached;
    },
    async refresh() {
      if (oauth) return oauth.tools(remote, offered);
      cached = await offered(await listAll());
      return cached;
    },
    diagnostics: () => connection.diagnostics(),
    async listResources() {
      const listed = await client();
      return listPages(async (cursor) => {
        const result = await listed.listResources(cursor ? { cursor } : {}, timeout);
        return { items: result.resources as McpResource[], nextCursor: result.nextCursor };
      });
    },
    async readResource(uri) {
      const result = await (await client()).readResource({ uri }, timeout);
      return { contents: result.contents as Record<string, unknown>[] };
    },
    async listPrompts() {
      const listed = await client();
      return listPages(async (cursor) => {
        const result = await listed.listPrompts(cursor ? { cursor } : {}, timeout);
        return { items: result.prompts as McpPrompt[], nextCursor: result.nextCursor };
      });
    },
    async getPrompt(name, args) {
      const result = await (await client()).getPrompt(
        { name, ...(args ? { arguments: args } : {}) },
        timeout,
      );
      return {
        ...(result.description ? { description: result.description } : {}),
        messages: result.messages as Record<string, unknown>[],
      };
    },
    close: async () => {
      await Promise.all([pool.close(), oauth?.access.close()]);
    },
  };
}

/**
 * For a server with `oauth`: per-user access, and its tools as the current user sees them —
 * the server's own once they have signed in, else the one sign-in tool.
 */
function oauthAccessOf(config: McpServerConfig, options: McpToolsetOptions) {
  if (config.type === 'stdio' || !config.oauth) return undefined;
  const access = createMcpOAuthAccess(
    { ...config, oauth: config.oauth },
    { fetch: options.fetch, clientName: options.clientName },
    () => createServerRequests(config.name, options),
    storedTokenLookupOf(options.gateway),
  );
  let signIn: Tool | undefined;
  const signInOf = async (remote: RemoteToolsContext): Promise<Tool> => {
    const spec = await access.spec();
    if (!signIn) {
      const wanted = `${config.toolNamePrefix ?? config.name}_sign_in`;
      const name = remote.names.register(`${remote.group}/ sign in`, wanted) ?? wanted;
      signIn = signInTool({ ...config, oauth: config.oauth! }, name, spec, access);
    }
    return signIn;
  };
  return {
    access,
    async tools(
      remote: RemoteToolsContext,
      offered: (listed: RemoteTool[]) => Promise<Tool[]>,
    ): Promise<Tool[]> {
      const spec = await access.spec();
      remote.credentials = [spec];
      const current = await access.currentToken();
      if (!current) return [await signInOf(remote)];
      try {
        return await offered(await access.list(current.invocation, current.token));
      } catch (error) {
        // A token the server no longer takes: the sign-in tool renews it or asks again.
        if ((await mcpFailureOf(error)) === 'unauthorized') return [await signInOf(remote)];
        throw error;
      }
    },
  };
}

/** The server's transport: one child process for a stdio server, HTTP for a URL. */
function connectionOf(
  config: McpServerConfig,
  options: McpToolsetOptions,
  setup: ReturnType<typeof createServerRequests>,
): McpConnection {
  return config.type === 'stdio'
    ? createStdioConnection(config, {
        clientName: options.clientName,
        setup,
        sandbox: options.stdioSandbox,
      })
    : createHttpConnection(config, {
        fetch: options.fetch,
        clientName: options.clientName,
        setup,
      });
}
