import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { registerSecret } from '../util/redact.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import type { McpHttpServerConfig } from './mcp-config.js';
import {
  type McpClientSetup,
  type McpConnection,
  type McpSession,
  type McpToolsetDiagnostics,
  newMcpClient,
} from './mcp-connection.js';

/** Options shared by the HTTP transports. */
export interface HttpConnectionOptions {
  fetch?: typeof fetch | undefined;
  clientName?: string | undefined;
  setup?: McpClientSetup | undefined;
}

/** The connection to one HTTP server: how to reach it, the transport it speaks, sessions started. */
interface HttpLink {
  readonly config: McpHttpServerConfig;
  readonly options: HttpConnectionOptions;
  /** The configured headers and the API key's `Authorization`. */
  readonly headers: Record<string, string>;
  readonly fetchOption: { fetch?: typeof fetch };
  /** Known once a session opened (or `sse` configured); `undefined` until then. */
  kind: 'streamable-http' | 'sse' | undefined;
  starts: number;
}

/** A session over `transport`, initialised; `end` runs before the client closes. */
async function connect(
  link: HttpLink,
  transport: Transport,
  end: () => Promise<void>,
): Promise<McpSession> {
  const client = await newMcpClient(link.options.clientName, link.options.setup);
  try {
    await client.connect(transport, { timeout: link.config.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  link.starts += 1;
  return {
    client,
    alive: () => true,
    endedBecause: () => undefined,
    close: async () => {
      await end().catch(() => undefined);
      await client.close();
    },
  };
}

async function streamable(link: HttpLink): Promise<McpSession> {
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const transport = new StreamableHTTPClientTransport(new URL(link.config.url), {
    requestInit: { headers: link.headers },
    // No resumption: SDK 1.x would re-open a stream after a JSON-RPC error reply and a server's
    // event store may then replay old messages (server requests included).
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 30_000,
      reconnectionDelayGrowFactor: 1.5,
    },
    ...link.fetchOption,
  });
  // Tell a stateful server the session is over (DELETE) before closing.
  return connect(link, transport, () => transport.terminateSession());
}

async function sse(link: HttpLink): Promise<McpSession> {
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const transport = new SSEClientTransport(new URL(link.config.url), {
    requestInit: { headers: link.headers },
    ...link.fetchOption,
  });
  return connect(link, transport, async () => undefined);
}

/** Initialisation is safe to repeat: retry it when a pooled connection turns out to be dead. */
async function withRetry(open: () => Promise<McpSession>): Promise<McpSession> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await open();
    } catch (error) {
      if (attempt >= 2 || !(error instanceof TypeError)) throw error;
    }
  }
}

/** The status of a 4xx answer to Streamable HTTP's `initialize` (what a legacy HTTP+SSE server gives). */
async function legacyStatus(error: unknown): Promise<number | undefined> {
  const { StreamableHTTPError } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const code = error instanceof StreamableHTTPError ? error.code : undefined;
  // A 401 is a refused credential, never a sign of a legacy server.
  return typeof code === 'number' && code >= 400 && code < 500 && code !== 401 ? code : undefined;
}

/** {@link McpConnection.open}: the known transport, else Streamable HTTP, else (after a 4xx) SSE. */
async function open(link: HttpLink): Promise<McpSession> {
  if (link.kind === 'sse') return withRetry(() => sse(link));
  try {
    const session = await withRetry(() => streamable(link));
    link.kind = 'streamable-http';
    return session;
  } catch (error) {
    // Only a server never reached over Streamable HTTP may turn out to be a legacy one.
    const status = link.kind === undefined ? await legacyStatus(error) : undefined;
    if (status === undefined) throw error;
    let session: McpSession;
    try {
      session = await withRetry(() => sse(link));
    } catch (sseError) {
      throw new Error(
        `it answered Streamable HTTP with ${status} (${modelSafeErrorMessage(error)}), and the legacy SSE transport failed too: ${modelSafeErrorMessage(sseError)}`,
        { cause: error },
      );
    }
    link.kind = 'sse';
    return session;
  }
}

/**
 * Sessions with a server over HTTP: Streamable HTTP, or the legacy HTTP+SSE transport. A server
 * whose kind is not known yet is tried with Streamable HTTP first; when it answers `initialize`
 * with a 4xx (what a legacy server does with a POST it does not expect) the same URL is tried
 * with SSE, and from then on the server is known to be SSE. A refused connection, a 5xx or a
 * timeout is no reason to fall back.
 */
export function createHttpConnection(
  config: McpHttpServerConfig,
  options: HttpConnectionOptions = {},
): McpConnection {
  const headers: Record<string, string> = {
    ...(config.headers ?? {}),
    ...(config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {}),
  };
  // Whatever the server echoes back (errors, `isError` text, results), these never reach the model.
  registerSecret(config.apiKey);
  for (const value of Object.values(headers)) registerSecret(value);
  const link: HttpLink = {
    config,
    options,
    headers,
    fetchOption: options.fetch ? { fetch: options.fetch } : {},
    kind: config.type === 'sse' ? 'sse' : undefined,
    starts: 0,
  };

  return {
    kind: 'http',
    open: () => open(link),
    diagnostics(): McpToolsetDiagnostics {
      return {
        transport: link.kind,
        pid: undefined,
        starts: link.starts,
        crashes: 0,
        lastExit: undefined,
        restartNotBefore: undefined,
        stderrTail: '',
        stderrBytes: 0,
      };
    },
    async close() {},
  };
}
