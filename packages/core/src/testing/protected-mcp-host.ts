import { createToolGateway } from '../gateway/create-tool-gateway.js';
import type { ToolGateway } from '../gateway/gateway-types.js';
import { loadMcpToolsets } from '../mcp/load-mcp-toolsets.js';
import type { McpToolset } from '../mcp/mcp-toolset.js';
import { type ProtectedMcpTestServers, startProtectedMcpTestServers } from './oauth-test-server.js';

/** A host with one MCP server behind OAuth: the servers, a gateway that keeps credentials, its toolset. */
export interface ProtectedMcpHost extends ProtectedMcpTestServers {
  readonly gateway: ToolGateway;
  /** The protected server as the host loads it: `files`, with `oauth`, low risk. */
  readonly files: McpToolset;
}

/**
 * {@link startProtectedMcpTestServers}, plus what a host makes of them: a gateway whose
 * credentials are sealed with `credentialKey`, and the server loaded as `files` with
 * `oauth: { redirectUri }` (its tools: `files_sign_in` until the user signs in, then `whoami` and
 * `leak`). `close` stops everything.
 *
 * @example
 * ```ts
 * const host = await startProtectedMcpHost();
 * const tools = await runWithInvocationContext({ accountId: 'a', userId: 'alice' }, () => host.files.tools());
 * ```
 */
export async function startProtectedMcpHost(
  credentialKey = 'a-test-credential-key-of-at-least-32-bytes',
): Promise<ProtectedMcpHost> {
  const servers = await startProtectedMcpTestServers();
  const gateway = createToolGateway({ env: {}, credentials: { key: credentialKey } });
  const loaded = await loadMcpToolsets(
    [
      {
        name: 'files',
        url: servers.mcp.url,
        oauth: { redirectUri: servers.auth.redirectUri },
        riskLevel: 'low',
      },
    ],
    { gateway, strict: true },
  );
  return {
    ...servers,
    gateway,
    files: loaded.toolsets[0]!,
    close: async () => {
      await loaded.close();
      await servers.close();
    },
  };
}
