import { getInvocationContext, type InvocationContext } from '../context/invocation-context.js';
import type { CredentialSpec } from '../credentials/credential-spec.js';
import type { StoredTokenLookup } from '../gateway/gateway-credentials.js';
import type { ToolResult } from '../gateway/results.js';
import { defineJsonSchemaTool } from '../tool/define-tool.js';
import type { Tool, ToolExecutionContext } from '../tool/tool.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { mcpFailure } from './failure.js';
import { createHttpConnection, type HttpConnectionOptions } from './http-connection.js';
import type { McpHttpServerConfig } from './mcp-config.js';
import type { McpConnection } from './mcp-connection.js';
import { mcpFailureOf } from './mcp-failure.js';
import { discoverMcpOAuthClient, mcpCredentialSpec } from './mcp-oauth.js';
import type { McpOAuthOptions } from './mcp-oauth-config.js';
import type { createServerRequests } from './mcp-server-requests.js';
import { createSessionPool, type McpSessionPool } from './mcp-session-pool.js';
import { unauthorized } from './mcp-tool-call.js';
import { listRemoteTools, type RemoteTool } from './mcp-tool-listing.js';

/** An HTTP server that signs its users in with OAuth. */
export type McpOAuthServerConfig = McpHttpServerConfig & { readonly oauth: McpOAuthOptions };

/** One user's session with the server, over the token it was opened with. */
interface UserSession {
  readonly token: string;
  readonly connection: McpConnection;
  readonly pool: McpSessionPool;
  /** What the server asks during this user's calls goes to this user's calls only. */
  readonly requests: ServerRequests;
  /** Calls and listings running on it: a replaced or evicted session closes once they end. */
  busy: number;
  retired: boolean;
}

type ServerRequests = ReturnType<typeof createServerRequests>;

/** The most users with a session open at once (the oldest is closed first). */
const MAX_USER_SESSIONS = 64;

/** What the toolset needs to act as each of its users on an OAuth server. */
export interface McpOAuthAccess {
  /** The credential the server's tools declare (discovered once; tried again after a failure). */
  spec(): Promise<CredentialSpec>;
  /** The stored token of the current account and user, when there is one. */
  currentToken(): Promise<{ invocation: InvocationContext; token: string } | undefined>;
  /** The session of `invocation`'s user over `token` (a new one when the token changed). */
  sessionOf(invocation: InvocationContext, token: string): UserSession;
  /** Every page of `tools/list`, as the user of `token`. */
  list(invocation: InvocationContext, token: string): Promise<RemoteTool[]>;
  /**
   * Runs `work` with the calling user's token; when the server refuses it (401), once more with a
   * renewed one — or the call stops with the `credential_required` pause.
   */
  asUser(
    context: ToolExecutionContext,
    work: (session: UserSession) => Promise<ToolResult>,
  ): Promise<ToolResult>;
  close(): Promise<void>;
}

const userKey = (invocation: InvocationContext): string =>
  JSON.stringify([invocation.accountId ?? '', invocation.userId ?? '']);

const isUnauthorized = (result: ToolResult): boolean =>
  (result as { error_type?: unknown }).error_type === 'mcp_unauthorized';

/**
 * Per-user access to an OAuth MCP server: discovery and client registration once, a pooled
 * session per account and user (never shared by two users, replaced when the token changes),
 * tokens from the gateway's credential store.
 */
export function createMcpOAuthAccess(
  config: McpOAuthServerConfig,
  options: Omit<HttpConnectionOptions, 'setup'>,
  requestsFor: () => ServerRequests,
  lookup: StoredTokenLookup | undefined,
): McpOAuthAccess {
  let discovered: Promise<CredentialSpec> | undefined;
  const sessions = new Map<string, UserSession>();
  const drop = (session: UserSession): void => {
    session.retired = true;
    if (session.busy === 0) void session.pool.close();
  };
  /** Runs `work` on `session`, which stays open (even when replaced meanwhile) until it ends. */
  const using = async <T>(session: UserSession, work: (open: UserSession) => Promise<T>) => {
    session.busy += 1;
    try {
      return await work(session);
    } finally {
      session.busy -= 1;
      if (session.retired && session.busy === 0) void session.pool.close();
    }
  };

  const access: McpOAuthAccess = {
    spec() {
      if (!discovered) {
        const attempt = discoverMcpOAuthClient(config).then((found) =>
          mcpCredentialSpec(config, found),
        );
        discovered = attempt;
        attempt.catch(() => {
          if (discovered === attempt) discovered = undefined;
        });
      }
      return discovered;
    },
    async currentToken() {
      const invocation = getInvocationContext();
      if (!invocation?.accountId || !lookup) return undefined;
      const token = await lookup(invocation, await access.spec());
      return token ? { invocation, token } : undefined;
    },
    sessionOf(invocation, token) {
      const key = userKey(invocation);
      const open = sessions.get(key);
      if (open?.token === token) {
        // Most recently used last: the first entry is the one to close when full.
        sessions.delete(key);
        sessions.set(key, open);
        return open;
      }
      if (open) {
        sessions.delete(key);
        drop(open);
      }
      while (sessions.size >= MAX_USER_SESSIONS) {
        const [oldest, session] = sessions.entries().next().value as [string, UserSession];
        sessions.delete(oldest);
        drop(session);
      }
      const requests = requestsFor();
      const connection = createHttpConnection(
        { ...config, headers: { ...(config.headers ?? {}), Authorization: `Bearer ${token}` } },
        { ...options, setup: requests },
      );
      const session: UserSession = {
        token,
        connection,
        pool: createSessionPool(connection),
        requests,
        busy: 0,
        retired: false,
      };
      sessions.set(key, session);
      return session;
    },
    list(invocation, token) {
      return using(access.sessionOf(invocation, token), (session) =>
        listRemoteTools(session.pool, session.connection, config.timeoutMs),
      );
    },
    async asUser(context, work) {
      const spec = await access.spec();
      let { token } = await context.credential(spec.id);
      const result = await using(access.sessionOf(context.invocation, token), work);
      if (!isUnauthorized(result)) return result;
      // Refused (revoked or expired early): renewed once, else the user is asked to sign in again.
      ({ token } = await context.credential(spec.id, { rejectedToken: token }));
      return using(access.sessionOf(context.invocation, token), work);
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      // Closing the toolset ends every session, busy or not.
      await Promise.all(open.map((session) => session.pool.close()));
    },
  };
  return access;
}

/**
 * The one tool offered for an OAuth server before the current user has signed in: calling it
 * asks the user to sign in (the `credential_required` pause); once they have, it lists what the
 * server offers. Its tools are offered when the agent's tools are loaded again for that user.
 */
export function signInTool(
  config: McpOAuthServerConfig,
  name: string,
  spec: CredentialSpec,
  access: McpOAuthAccess,
): Tool {
  return defineJsonSchemaTool({
    name,
    description: `Signs the user in to MCP server ${config.name}, whose tools act as the user. Call it when the user asks for something that server does; its tools are offered from the next turn.`,
    inputSchema: { type: 'object', properties: {} },
    group: `mcp:${config.name}`,
    boundary: 'remote_mcp_server',
    credentials: [spec],
    timeoutMs: config.timeoutMs * 2 + 1000,
    policy: { riskLevel: 'low', requiresApproval: false, sideEffects: [] },
    execute: async (_args, context) => {
      let tools: RemoteTool[] = [];
      const result = await access.asUser(context, async (session) => {
        try {
          tools = await listRemoteTools(session.pool, session.connection, config.timeoutMs);
          return { ok: true };
        } catch (error) {
          return (await mcpFailureOf(error)) === 'unauthorized'
            ? unauthorized(config.name)
            : mcpFailure(
                'mcp_unavailable',
                `MCP server ${config.name} is unavailable: ${modelSafeErrorMessage(error)}`,
                { retryable: true },
              );
        }
      });
      if ((result as { ok?: unknown }).ok !== true) return result;
      return {
        signed_in: true,
        server: config.name,
        tools: tools.map((tool) => tool.name).slice(0, 200),
        note: 'These tools are offered from the next turn.',
      };
    },
  });
}
