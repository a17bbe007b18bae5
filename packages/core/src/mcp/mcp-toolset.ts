import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { checkOptions } from '../errors/check-options.js';
import type { ToolResult } from '../gateway/results.js';
import { probeToolSchema } from '../schema/probe-tool-schema.js';
import { createToolNameRegistry, type ToolNameRegistry } from '../schema/tool-names.js';
import { defineJsonSchemaTool } from '../tool/define-tool.js';
import { inputRequiredResult } from '../tool/human-input.js';
import { PAUSED } from '../tool/paused.js';
import type { JsonSchema, Tool, ToolExecutionContext } from '../tool/tool.js';
import { modelSafeErrorDetail, modelSafeErrorMessage } from '../util/sanitize-message.js';
import { createHttpConnection } from './http-connection.js';
import { type McpServerConfig, mcpDedupeKey } from './mcp-config.js';
import type { McpConnection, McpSession, McpToolsetDiagnostics } from './mcp-connection.js';
import { MCP_CONTENT_OVERFLOW_FIELD, mapMcpCallResult } from './mcp-content.js';
import {
  createServerRequests,
  type McpServerRequestOptions,
  SERVER_REQUEST_OPTIONS,
} from './mcp-server-requests.js';
import { createStdioConnection } from './stdio-connection.js';
import type { McpStdioSandboxOption } from './stdio-sandbox-config.js';

/** A tool as `tools/list` describes it. */
interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  execution?: { taskSupport?: string };
}

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

/** A tool of the server that could not be offered, and why. */
export interface McpToolProblem {
  readonly server: string;
  readonly tool: string;
  readonly message: string;
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

const MAX_DESCRIPTION = 2000;

function sessionExpired(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 404;
}

function timedOut(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === -32001;
}

/** The SDK's `ConnectionClosed`: the transport ended (a stdio server exited) with requests pending. */
function connectionClosed(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === -32000;
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
    ['names', 'fetch', 'clientName', 'stdioSandbox', ...SERVER_REQUEST_OPTIONS],
    'createMcpToolset()',
  );
  const names = options.names ?? createToolNameRegistry();
  const group = `mcp:${config.name}`;
  const problems: McpToolProblem[] = [];
  /** Model-facing names this toolset was given, by the server's tool name (stable across refreshes). */
  const given = new Map<string, string>();
  let session: Promise<McpSession> | undefined;
  /** The session `session` resolved to, once it has. */
  let opened: McpSession | undefined;
  let cached: Tool[] | undefined;
  let listing: Promise<RemoteTool[]> | undefined;
  const requests = createServerRequests(config.name, options);
  const connection: McpConnection =
    config.type === 'stdio'
      ? createStdioConnection(config, {
          clientName: options.clientName,
          setup: requests,
          sandbox: options.stdioSandbox,
        })
      : createHttpConnection(config, {
          fetch: options.fetch,
          clientName: options.clientName,
          setup: requests,
        });

  const current = (): Promise<McpSession> => {
    // A stdio server that exited is replaced (after its back-off) by the next use.
    if (opened && !opened.alive()) {
      session = undefined;
      opened = undefined;
    }
    if (!session) {
      const attempt = connection.open();
      session = attempt;
      attempt.then(
        (value) => {
          if (session === attempt) opened = value;
        },
        () => {
          if (session === attempt) session = undefined;
        },
      );
    }
    return session;
  };
  const drop = async (dead: Promise<McpSession>): Promise<void> => {
    if (session === dead) {
      session = undefined;
      opened = undefined;
    }
    await dead.then((s) => s.close()).catch(() => undefined);
  };

  const listAll = async (): Promise<RemoteTool[]> => {
    for (let attempt = 0; ; attempt += 1) {
      const active = current();
      let client: Client;
      try {
        ({ client } = await active);
      } catch (error) {
        // A stdio server that could not start is not started again at once (its back-off).
        if (connection.kind === 'stdio' || attempt >= 3) throw error;
        continue;
      }
      try {
        const tools: RemoteTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 100; page += 1) {
          const result = await client.listTools(cursor ? { cursor } : {}, {
            timeout: config.timeoutMs,
          });
          tools.push(...(result.tools as typeof tools));
          cursor = result.nextCursor;
          if (!cursor) break;
        }
        return tools;
      } catch (error) {
        // Listing is read-only, so after a lost session or connection it is safe to try again
        // (a restarted server can leave several dead keep-alive connections behind; a stdio
        // server that stopped mid-listing is started again once).
        await drop(active);
        const retries = connection.kind === 'stdio' ? (connectionClosed(error) ? 1 : 0) : 3;
        if (attempt < retries) continue;
        throw error;
      }
    }
  };

  const call = async (
    originalName: string,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
  ): Promise<ToolResult> => {
    const active = current();
    let live: McpSession;
    try {
      live = await active;
    } catch (error) {
      return unavailable(modelSafeErrorMessage(error));
    }
    const inflight = requests.begin(context);
    try {
      const running = live.client.callTool({ name: originalName, arguments: args }, undefined, {
        timeout: config.timeoutMs,
        // Aborted with the call: its timeout, the caller's signal, or a pause for the human
        // (the gateway stops a call that returned input_required), which cancels the request.
        signal: context.signal,
        onprogress: (progress) =>
          context.reportProgress({
            progress: progress.progress,
            ...(progress.total !== undefined ? { total: progress.total } : {}),
            ...(typeof progress.message === 'string' ? { message: progress.message } : {}),
            resetTimeout: options.resetTimeoutOnProgress === true,
          }),
        ...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true } : {}),
      });
      running.catch(() => undefined);
      for (;;) {
        const next = await Promise.race([
          running.then((result) => ({ result })),
          inflight.nextQuestion().then((question) => ({ question })),
        ]);
        if ('result' in next) return mapMcpCallResult(next.result);
        // The server asks the human mid-call: through the adapter's pause.
        const answer = await context.askHuman(next.question.request);
        if (answer === PAUSED) {
          next.question.respond({ action: 'cancel' });
          return inputRequiredResult(next.question.request);
        }
        next.question.respond(answer);
      }
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (sessionExpired(error)) {
        await drop(active);
        return {
          ok: false,
          error_type: 'mcp_session_expired',
          error_message: `The session with MCP server ${config.name} expired; the call was not run. It is safe to try again.`,
          retryable: true,
        };
      }
      if (timedOut(error)) {
        return {
          ok: false,
          error_type: 'tool_timeout',
          error_message: `MCP server ${config.name} did not answer within ${config.timeoutMs} ms.`,
          retryable: true,
        };
      }
      const ended = live.endedBecause();
      if (connectionClosed(error) && ended) {
        // The server process stopped with the call in flight: never replayed.
        await drop(active);
        return unavailable(
          `it stopped while the call was running (${modelSafeErrorMessage(ended)}). The call was not retried and may or may not have taken effect; the server is started again on the next call.`,
        );
      }
      if (
        connectionClosed(error) ||
        (error as { code?: unknown }).code === undefined ||
        error instanceof TypeError
      ) {
        await drop(active);
        return unavailable(modelSafeErrorDetail(error));
      }
      // The server's whole message and its cause (bounded, redacted): its second line is often
      // the reason (a connection refused upstream).
      return { ok: false, error_type: 'mcp_error', error_message: modelSafeErrorDetail(error) };
    } finally {
      inflight.end();
    }
  };

  /** Every page of a listing, bounded. */
  const pages = async <T>(
    list: (
      client: Client,
      cursor: string | undefined,
    ) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  ): Promise<T[]> => {
    const { client } = await current();
    const out: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100 && out.length < 1000; page += 1) {
      const result = await list(client, cursor);
      out.push(...result.items);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return out.slice(0, 1000);
  };
  const unavailable = (why: string): ToolResult => ({
    ok: false,
    error_type: 'mcp_unavailable',
    error_message: `MCP server ${config.name} is unavailable: ${why}`,
    retryable: true,
  });

  const toTools = (listed: RemoteTool[]): Tool[] => {
    problems.length = 0;
    const filter = new Set(config.toolFilter);
    const out: Tool[] = [];
    for (const remote of listed) {
      if (filter.size > 0 && !filter.has(remote.name)) continue;
      if (remote.execution?.taskSupport === 'required') {
        // Only callable as an MCP task (tasks/*), which this client does not run.
        problems.push({
          server: config.name,
          tool: remote.name,
          message: 'it can only run as an MCP task, which KsADK does not support yet',
        });
        continue;
      }
      const wanted = config.toolNamePrefix
        ? `${config.toolNamePrefix}_${remote.name}`
        : remote.name;
      const name = given.get(remote.name) ?? names.register(`${group}/${remote.name}`, wanted);
      if (name) given.set(remote.name, name);
      if (!name) {
        problems.push({
          server: config.name,
          tool: remote.name,
          message: `duplicate tool name ${wanted}`,
        });
        continue;
      }
      const description =
        (remote.description ?? '').trim() || `Tool ${remote.name} of MCP server ${config.name}.`;
      if (description.length > MAX_DESCRIPTION)
        problems.push({
          server: config.name,
          tool: remote.name,
          message: `its description (${description.length} characters) is cut at ${MAX_DESCRIPTION}`,
        });
      try {
        out.push(
          defineJsonSchemaTool({
            name,
            originalName: remote.name,
            description: `[MCP server ${config.name}] ${description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description}`,
            inputSchema: remote.inputSchema ?? { type: 'object' },
            group,
            boundary: 'remote_mcp_server',
            timeoutMs: config.timeoutMs + 1000,
            // Each piece of text once (text or structured content); parts past the inline cap
            // saved, never inline.
            resultBudget: {
              fields: ['text', 'structured_content'],
              persistFields: [MCP_CONTENT_OVERFLOW_FIELD],
            },
            policy: {
              riskLevel: config.riskLevel,
              sideEffects: ['mcp_tool_call'],
              ...(config.requiresApproval !== undefined
                ? { requiresApproval: config.requiresApproval }
                : {}),
            },
            execute: (args, context) => call(remote.name, args, context),
          }),
        );
      } catch (error) {
        problems.push({
          server: config.name,
          tool: remote.name,
          message: modelSafeErrorMessage(error),
        });
      }
    }
    return out;
  };

  /** Tools whose schemas every framework and the validator can use; the rest are reported. */
  const usable = async (tools: Tool[]): Promise<Tool[]> => {
    const out: Tool[] = [];
    for (const tool of tools) {
      const problem = await probeToolSchema(tool);
      if (problem) {
        problems.push({
          server: config.name,
          tool: tool.originalName ?? tool.name,
          message: problem,
        });
      } else out.push(tool);
    }
    return out;
  };

  return {
    name: config.name,
    group,
    dedupeKey: mcpDedupeKey(config),
    problems,
    async prefetch() {
      listing ??= listAll();
      try {
        await listing;
      } catch (error) {
        listing = undefined;
        throw error;
      }
    },
    async tools() {
      if (!cached) {
        listing ??= listAll();
        try {
          cached = await usable(toTools(await listing));
        } finally {
          listing = undefined;
        }
      }
      return cached;
    },
    async refresh() {
      cached = await usable(toTools(await listAll()));
      return cached;
    },
    diagnostics() {
      return connection.diagnostics();
    },
    listResources: () =>
      pages(async (client, cursor) => {
        const result = await client.listResources(cursor ? { cursor } : {}, {
          timeout: config.timeoutMs,
        });
        return { items: result.resources as McpResource[], nextCursor: result.nextCursor };
      }),
    async readResource(uri) {
      const { client } = await current();
      const result = await client.readResource({ uri }, { timeout: config.timeoutMs });
      return { contents: result.contents as Record<string, unknown>[] };
    },
    listPrompts: () =>
      pages(async (client, cursor) => {
        const result = await client.listPrompts(cursor ? { cursor } : {}, {
          timeout: config.timeoutMs,
        });
        return { items: result.prompts as McpPrompt[], nextCursor: result.nextCursor };
      }),
    async getPrompt(name, args) {
      const { client } = await current();
      const result = await client.getPrompt(
        { name, ...(args ? { arguments: args } : {}) },
        { timeout: config.timeoutMs },
      );
      return {
        ...(result.description ? { description: result.description } : {}),
        messages: result.messages as Record<string, unknown>[],
      };
    },
    async close() {
      const active = session;
      session = undefined;
      opened = undefined;
      await Promise.all([
        active?.then((s) => s.close()).catch(() => undefined),
        connection.close(),
      ]);
    },
  };
}
