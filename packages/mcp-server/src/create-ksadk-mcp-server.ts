import { randomBytes } from 'node:crypto';
import {
  KsadkError,
  type Tool as KsadkTool,
  runWithInvocationContext,
  type ToolGateway,
} from '@ksadk/core';
import {
  checkOptions,
  type GatewayErrorType,
  gatewayFailure,
  invokeWithApproval,
  PAUSED,
} from '@ksadk/core/adapter';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { decideOverMcp, type McpApprovalOptions, type Undecided } from './approval-over-mcp.js';
import { callResultOf } from './call-result.js';
import { askOverMcp } from './questions-over-mcp.js';
import type { ApprovalSettings, McpRequestContext } from './request-context.js';
import { readResultResource } from './result-resources.js';
import { mcpToolOf } from './tool-listing.js';

/** Who a connection's calls run as: the account, user and session of every call it makes. */
export interface KsadkMcpPrincipal {
  readonly accountId?: string;
  readonly userId?: string;
  readonly sessionId?: string;
}

/** Options for {@link createKsadkMcpServer}. */
export interface KsadkMcpServerOptions {
  /** The tools to serve, in the order clients list them (names must be unique). */
  readonly tools: readonly KsadkTool[];
  /** The gateway every call goes through: its approvals, budget, records and stores. */
  readonly gateway: ToolGateway;
  /**
   * Who this connection's calls run as (one server per connection). Approvals, results, memory,
   * workspaces and records are scoped to it. @default the empty account, no user, a session of
   * its own for this server
   */
  readonly principal?: KsadkMcpPrincipal;
  /** How gated calls are decided. */
  readonly approvals?: McpApprovalOptions;
  /** Calls this connection may run at once; more answer `service_unavailable`. @default 8 */
  readonly maxConcurrentCalls?: number;
  /** The server's name and version in `initialize`. @default `ksadk` and this package's version */
  readonly name?: string;
  readonly version?: string;
  /** Instructions for the client's model (the catalogue's `instructions`, say). */
  readonly instructions?: string;
}

/** The options {@link createKsadkMcpServer} takes. */
export const SERVER_OPTIONS = {
  tools: true,
  gateway: true,
  principal: true,
  approvals: true,
  maxConcurrentCalls: true,
  name: true,
  version: true,
  instructions: true,
} as const;

const DEFAULT_WAIT_MS = 5 * 60_000;
const MAX_WAIT_MS = 24 * 3_600_000;
const VERSION = '0.1.0';

function settingsOf(options: McpApprovalOptions | undefined): ApprovalSettings {
  checkOptions(
    options ?? {},
    { elicitation: true, waitMs: true, progressEveryMs: true },
    'createKsadkMcpServer({ approvals })',
  );
  const waitMs = options?.waitMs ?? DEFAULT_WAIT_MS;
  const progressEveryMs = options?.progressEveryMs ?? 5000;
  for (const [name, value, max] of [
    ['waitMs', waitMs, MAX_WAIT_MS],
    ['progressEveryMs', progressEveryMs, MAX_WAIT_MS],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0 || value > max)
      throw new KsadkError(
        'invalid_config',
        `approvals.${name} must be a number of milliseconds from 1 to ${max}.`,
      );
  }
  return { elicitation: options?.elicitation ?? true, waitMs, progressEveryMs };
}

function failure(type: GatewayErrorType, message: string): CallToolResult {
  return callResultOf(gatewayFailure(type, message));
}

/** Why a call that nobody decided ran nothing, for the model. */
function undecidedResult(
  reason: Undecided | undefined,
  tool: string,
  waitMs: number,
): CallToolResult {
  if (reason === 'cancelled')
    return failure(
      'tool_aborted',
      `The call of ${tool} was cancelled while it waited for approval; nothing ran.`,
    );
  return failure(
    'approval_expired',
    reason === 'expired'
      ? `The approval request for ${tool} expired before anyone decided; nothing ran.`
      : `Nobody approved ${tool} within ${Math.round(waitMs / 1000)} s; nothing ran. Ask the user before trying again.`,
  );
}

/**
 * A KsADK tool catalogue as an MCP server (the official SDK's `Server`): `tools/list` gives each
 * tool's JSON Schema and hints from its policy; `tools/call` goes through the gateway as the
 * connection's principal. A call that needs a human asks through the client's elicitation when the
 * client has it (accept approves, decline rejects; nothing the model sends counts), otherwise it
 * waits — with progress notifications, up to `approvals.waitMs` — for a decision made through the
 * gateway's API. Outputs too large for the result come as resource links, readable with
 * `resources/read` by the same principal only. A cancelled request aborts its call.
 *
 * Connect it to a transport: `await server.connect(new StdioServerTransport())`, or see
 * {@link serveKsadkMcpHttp} for several accounts over Streamable HTTP.
 *
 * @throws {KsadkError} `invalid_config` for unknown options, two tools with one name, or bad limits.
 *
 * @example
 * ```ts
 * const { tools, gateway } = await loadAgentTools({ builtins: { profile: 'coding' } });
 * await createKsadkMcpServer({ tools, gateway }).connect(new StdioServerTransport());
 * ```
 */
export function createKsadkMcpServer(options: KsadkMcpServerOptions): Server {
  checkOptions(options, SERVER_OPTIONS, 'createKsadkMcpServer()');
  const { tools, gateway } = options;
  const approvals = settingsOf(options.approvals);
  const maxCalls = options.maxConcurrentCalls ?? 8;
  if (!Number.isInteger(maxCalls) || maxCalls < 1 || maxCalls > 1000)
    throw new KsadkError('invalid_config', 'maxConcurrentCalls must be an integer from 1 to 1000.');
  const byName = new Map<string, KsadkTool>();
  for (const tool of tools) {
    if (byName.has(tool.name))
      throw new KsadkError('invalid_config', `Two tools are named ${tool.name}.`);
    byName.set(tool.name, tool);
  }
  const listed = tools.map(mcpToolOf);
  // Call ids are unique per connection: JSON-RPC ids start again with every client.
  const connection = randomBytes(8).toString('hex');
  const principal = {
    accountId: options.principal?.accountId ?? '',
    ...(options.principal?.userId !== undefined ? { userId: options.principal.userId } : {}),
    sessionId: options.principal?.sessionId ?? `mcp_${connection}`,
  };
  let running = 0;

  const server = new Server(
    { name: options.name ?? 'ksadk', version: options.version ?? VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      ...(options.instructions ? { instructions: options.instructions } : {}),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const tool = byName.get(name);
    if (!tool) return failure('unknown_tool', `There is no tool named ${name.slice(0, 200)}.`);
    if (running >= maxCalls)
      return failure(
        'service_unavailable',
        `Too many calls at once on this connection (at most ${maxCalls}); try again when one has finished.`,
      );
    running += 1;
    const token = extra._meta?.progressToken;
    const context: McpRequestContext = {
      signal: extra.signal,
      sendRequest: (req, schema, opts) =>
        extra.sendRequest(req as never, schema as never, opts) as never,
      clientCapabilities: () => server.getClientCapabilities(),
      progress: (progress, total, message) => {
        if (token === undefined) return;
        extra
          .sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress,
              ...(total !== undefined ? { total } : {}),
              ...(message !== undefined ? { message } : {}),
            },
          })
          .catch(() => undefined);
      },
      approvals,
    };
    const undecided: { reason?: Undecided } = {};
    // A slot is free only once the tool itself has ended: a cancelled call answers at once, but a
    // tool that ignores its signal goes on running, and must go on counting.
    const executions: Promise<void>[] = [];
    try {
      const outcome = await runWithInvocationContext(principal, () =>
        invokeWithApproval(gateway, tool, args, {
          callId: `mcp_${connection}_${String(extra.requestId)}`,
          signal: extra.signal,
          onExecution: (settled) => executions.push(settled),
          onProgress: (event) => context.progress(event.progress, event.total, event.message),
          askHuman: (question) => askOverMcp(context, question),
          decide: (pause) =>
            pause.type === 'ksadk_approval'
              ? decideOverMcp(gateway, context, pause, undecided)
              : // A sign-in the client cannot show: the model gets `credential_required`.
                PAUSED,
        }),
      );
      if (outcome.status === 'paused' && outcome.pause.type === 'ksadk_approval') {
        // Nobody waits for it any more: close it, so it cannot be approved for nothing.
        await gateway
          .reject(outcome.pause.approval_request.id, {
            reason: 'Nobody decided in time.',
            principal: {
              accountId: principal.accountId,
              ...(principal.userId !== undefined ? { userId: principal.userId } : {}),
            },
          })
          .catch(() => undefined);
        return undecidedResult(undecided.reason, tool.name, approvals.waitMs);
      }
      return callResultOf(outcome.result);
    } finally {
      const release = () => {
        running -= 1;
      };
      if (executions.length === 0) release();
      else void Promise.all(executions).then(release);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    runWithInvocationContext(principal, () => readResultResource(gateway, request.params.uri)),
  );

  return server;
}
