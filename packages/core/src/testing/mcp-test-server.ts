import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonSchema } from '../tool/tool.js';

/** A tool served by {@link startMcpTestServer}: a raw JSON Schema and a handler. */
export interface McpTestTool {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  /** The tool's annotations (`readOnlyHint`, `destructiveHint`…), as the server claims them. */
  annotations?: Record<string, unknown>;
  /**
   * Returns an MCP `CallToolResult` (`{ content, structuredContent?, isError?, _meta? }`). A
   * thrown error is an `isError` result, or a JSON-RPC error when it has a numeric `code`.
   */
  handler: (
    args: Record<string, unknown>,
    extra: { readonly authInfo?: McpTestAuthInfo },
  ) => unknown | Promise<unknown>;
}

/** Who a protected server's request is from, as its token verifier said (the MCP SDK's `AuthInfo`). */
export interface McpTestAuthInfo {
  readonly token: string;
  readonly clientId: string;
  readonly scopes: string[];
  /** Epoch seconds. */
  readonly expiresAt?: number;
  readonly resource?: URL;
  readonly extra?: Record<string, unknown>;
}

/** Protects a test server with OAuth: the MCP SDK's bearer-token middleware and resource metadata. */
export interface McpTestServerAuth {
  /** The authorization server's issuer, named in the protected-resource metadata. */
  readonly issuer: string;
  /** Scopes the resource metadata lists (`scopes_supported`). */
  readonly scopes?: readonly string[];
  /** Checks a token: its facts, or throws the SDK's `InvalidTokenError`. */
  verifyAccessToken(token: string): Promise<McpTestAuthInfo>;
}

/** Options for {@link startMcpTestServer}. */
export interface McpTestServerOptions {
  tools: McpTestTool[];
  /** Stateful servers issue session ids (and forget them on restart); stateless ones do not. @default false */
  stateful?: boolean;
  /** Tools per `tools/list` page, to exercise pagination. @default all on one page */
  pageSize?: number;
  /** Port to listen on. @default a free one */
  port?: number;
  /**
   * Require an OAuth bearer token (the MCP authorization flow): 401 with `WWW-Authenticate` and
   * `resource_metadata` without a valid one; the metadata at `/.well-known/oauth-protected-resource/mcp`.
   */
  auth?: McpTestServerAuth;
}

/** A running test server. */
export interface McpTestServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Headers of every HTTP request received, in order. */
  readonly requests: { method: string; headers: IncomingMessage['headers'] }[];
  /** JSON-RPC methods received (`initialize`, `tools/list`, `tools/call`, …), in order. */
  readonly methods: string[];
  /** Stops listening and forgets every session. */
  close(): Promise<void>;
  /** Closes and listens again on the same port with no sessions (a server restart). */
  restart(): Promise<void>;
  /** Forgets every session while staying up (a session timeout, or another instance behind a load balancer). */
  forgetSessions(): Promise<void>;
}

type ServerModule = typeof import('@modelcontextprotocol/sdk/server/index.js');
type TransportModule = typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
type Transport = InstanceType<TransportModule['StreamableHTTPServerTransport']>;

/** The SDK parts a test server uses, loaded on start. */
interface McpServerSdk {
  bearerAuth: typeof import('@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js');
  Server: ServerModule['Server'];
  StreamableHTTPServerTransport: TransportModule['StreamableHTTPServerTransport'];
  types: typeof import('@modelcontextprotocol/sdk/types.js');
}

/** A running test server's parts: what it serves, what it heard, its sessions and listener. */
interface TestServerState {
  readonly sdk: McpServerSdk;
  readonly options: McpTestServerOptions;
  readonly requests: McpTestServer['requests'];
  readonly methods: string[];
  /** Stateful sessions by id; replaced, not cleared, when forgotten. */
  sessions: Map<string, Transport>;
  http: HttpServer | undefined;
}

/** An MCP server for one connection: `tools/list` (paged) and `tools/call` over the test tools. */
function toolServer(
  { Server, types }: McpServerSdk,
  options: McpTestServerOptions,
): InstanceType<ServerModule['Server']> {
  const server = new Server(
    { name: 'ksadk-test-server', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(types.ListToolsRequestSchema, async (request) => {
    const all = options.tools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    }));
    const size = options.pageSize ?? all.length;
    const start = request.params?.cursor ? Number(request.params.cursor) : 0;
    const page = all.slice(start, start + size);
    return {
      tools: page as never,
      ...(start + size < all.length ? { nextCursor: String(start + size) } : {}),
    };
  });
  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const tool = options.tools.find((candidate) => candidate.name === request.params.name);
    if (!tool)
      return {
        content: [{ type: 'text', text: `Tool ${request.params.name} not found` }],
        isError: true,
      };
    try {
      return (await tool.handler((request.params.arguments ?? {}) as Record<string, unknown>, {
        ...(extra.authInfo ? { authInfo: extra.authInfo as McpTestAuthInfo } : {}),
      })) as never;
    } catch (error) {
      // An error with a numeric JSON-RPC `code` is answered as a protocol error, as servers
      // do for a request they cannot serve; anything else is a tool error result.
      if (typeof (error as { code?: unknown } | null)?.code === 'number') throw error;
      return {
        content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
        isError: true,
      };
    }
  });
  return server;
}

const readBody = (req: IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });

/** A stateless request: a server and transport of its own, closed with the response. */
async function handleStateless(
  state: TestServerState,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const transport = new state.sdk.StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  const server = toolServer(state.sdk, state.options);
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** A stateful request: its session's transport, a 404 for a forgotten session, else a new session. */
async function handleStateful(
  state: TestServerState,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const sessionId = req.headers['mcp-session-id'];
  const existing = typeof sessionId === 'string' ? state.sessions.get(sessionId) : undefined;
  if (existing) {
    await existing.handleRequest(req, res, body);
    return;
  }
  if (typeof sessionId === 'string') {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32001, message: 'Session not found' },
        id: null,
      }),
    );
    return;
  }
  const owner = state.sessions;
  const transport = new state.sdk.StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (id) => {
      owner.set(id, transport);
    },
  });
  await toolServer(state.sdk, state.options).connect(transport);
  await transport.handleRequest(req, res, body);
}

/** One HTTP request: recorded (headers, JSON-RPC methods), then served. */
async function handle(
  state: TestServerState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  state.requests.push({ method: req.method ?? '', headers: req.headers });
  const auth = state.options.auth;
  const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
  if (auth && req.url?.startsWith('/.well-known/oauth-protected-resource')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        resource: `${origin}/mcp`,
        authorization_servers: [auth.issuer],
        bearer_methods_supported: ['header'],
        ...(auth.scopes ? { scopes_supported: auth.scopes } : {}),
      }),
    );
    return;
  }
  if (auth && !(await bearerChecked(state, auth, origin, req, res))) return;
  const body = req.method === 'POST' ? await readBody(req) : undefined;
  for (const message of Array.isArray(body) ? body : body ? [body] : []) {
    if (typeof (message as { method?: unknown }).method === 'string')
      state.methods.push((message as { method: string }).method);
  }
  if (!state.options.stateful) await handleStateless(state, req, res, body);
  else await handleStateful(state, req, res, body);
}

/**
 * The SDK's `requireBearerAuth` on a plain Node request (it is written for Express: the few
 * response methods it uses are supplied). Whether the request may go on; `req.auth` is set.
 */
function bearerChecked(
  state: TestServerState,
  auth: McpTestServerAuth,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const check = state.sdk.bearerAuth.requireBearerAuth({
    verifier: auth,
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
    expectedResource: new URL(`${origin}/mcp`),
  });
  const reply = Object.assign(res, {
    set: (name: string, value: string) => {
      res.setHeader(name, value);
      return reply;
    },
    status: (code: number) => {
      res.statusCode = code;
      return reply;
    },
    json: (body: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
      return reply;
    },
  });
  return new Promise((resolve, reject) => {
    res.once('finish', () => resolve(false));
    Promise.resolve(check(req as never, reply as never, () => resolve(true))).catch(reject);
  });
}

/** Listens on `port` (0: a free one) with a new HTTP server; returns the port. */
function listen(state: TestServerState, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const http = createServer((req, res) => {
      handle(state, req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(error));
      });
    });
    state.http = http;
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve((http.address() as AddressInfo).port));
  });
}

/** Closes every session and the HTTP server. */
async function stop(state: TestServerState): Promise<void> {
  for (const transport of state.sessions.values()) await transport.close().catch(() => undefined);
  state.sessions = new Map();
  const http = state.http!;
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}

/**
 * Starts a real MCP server (the official SDK's low-level `Server` and Streamable HTTP
 * transport) on 127.0.0.1, serving tools with exact JSON Schemas. For tests and benchmarks:
 * nothing leaves the machine.
 *
 * @example
 * ```ts
 * const server = await startMcpTestServer({ tools: [{ name: 'echo', inputSchema: { type: 'object' }, handler: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) }] });
 * ```
 */
export async function startMcpTestServer(options: McpTestServerOptions): Promise<McpTestServer> {
  const [{ Server }, { StreamableHTTPServerTransport }, types, bearerAuth] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'),
  ]);
  const state: TestServerState = {
    sdk: { bearerAuth, Server, StreamableHTTPServerTransport, types },
    options,
    requests: [],
    methods: [],
    sessions: new Map(),
    http: undefined,
  };

  const port = await listen(state, options.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests: state.requests,
    methods: state.methods,
    close: () => stop(state),
    async restart() {
      await stop(state);
      await listen(state, port);
    },
    async forgetSessions() {
      const old = state.sessions;
      state.sessions = new Map();
      for (const transport of old.values()) await transport.close().catch(() => undefined);
    },
  };
}
