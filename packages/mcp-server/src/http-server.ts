import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KsadkError } from '@ksadk/core';
import { checkOptions } from '@ksadk/core/adapter';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  createKsadkMcpServer,
  type KsadkMcpPrincipal,
  type KsadkMcpServerOptions,
  SERVER_OPTIONS,
} from './create-ksadk-mcp-server.js';

/** Options for {@link createKsadkMcpHttpHandler}. */
export interface KsadkMcpHttpOptions extends KsadkMcpServerOptions {
  /**
   * Who sends a request (from a bearer token, a cookie, mTLS…); `undefined` answers 401. Every
   * session belongs to the principal that opened it: another principal's requests to it are "not
   * found". Without it, one local user is served and every request needs the `token`.
   */
  readonly resolvePrincipal?: (
    request: IncomingMessage,
  ) => KsadkMcpPrincipal | undefined | Promise<KsadkMcpPrincipal | undefined>;
  /** Who the token holder is, without `resolvePrincipal`. @default `{ userId: 'local' }` */
  readonly principal?: KsadkMcpPrincipal;
  /** The bearer token required without `resolvePrincipal`. @default a random one (see `token`) */
  readonly token?: string;
  /** A request body larger than this answers 413. @default 4 MiB */
  readonly maxBodyBytes?: number;
  /** Open sessions at most; a new one beyond answers 503. @default 100 */
  readonly maxSessions?: number;
  /**
   * Open sessions of one principal at most, so that one account cannot take every place; a new
   * one beyond answers 503. @default 10 (never more than `maxSessions`)
   */
  readonly maxSessionsPerPrincipal?: number;
  /** A session unused this long is closed. @default 30 minutes */
  readonly idleMs?: number;
}

/** A Node request handler serving MCP's Streamable HTTP transport (mount it at your MCP path). */
export interface KsadkMcpHttpHandler {
  (request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The bearer token clients must send, when the handler serves one local user. */
  readonly token: string | undefined;
  /** Open sessions now. */
  readonly sessions: () => number;
  /** Closes every session (their running calls are cancelled). */
  close(): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  readonly owner: string;
  lastSeen: number;
  /** Requests whose response is still open (a call running or waiting, an SSE stream). */
  open: number;
}

const MiB = 1024 * 1024;

/** The principal a session belongs to, as one comparable string. */
const ownerOf = (principal: KsadkMcpPrincipal) =>
  JSON.stringify([
    principal.accountId ?? '',
    principal.userId ?? null,
    principal.sessionId ?? null,
  ]);

function answer(response: ServerResponse, status: number, message: string, code = -32000): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The request's JSON body, at most `limit` bytes; `undefined` with the answer sent when it is not one. */
async function bodyOf(
  request: IncomingMessage,
  response: ServerResponse,
  limit: number,
): Promise<{ value: unknown } | undefined> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) {
    answer(response, 413, `The request body is over ${limit} bytes.`);
    request.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      answer(response, 413, `The request body is over ${limit} bytes.`);
      request.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    answer(response, 400, 'The request body is not JSON.', -32700);
    return undefined;
  }
}

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The ids of the `tools/call` requests in a body (one message or a batch). */
const callIdsOf = (body: unknown): (string | number)[] =>
  (Array.isArray(body) ? body : [body]).flatMap((message) => {
    const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
    return method === 'tools/call' && (typeof id === 'string' || typeof id === 'number')
      ? [id]
      : [];
  });

const isInitialize = (body: unknown) =>
  (Array.isArray(body) ? body : [body]).some(
    (message) => (message as { method?: unknown } | null)?.method === 'initialize',
  );

/**
 * MCP over Streamable HTTP for several accounts: each session is a server of its own, scoped to the
 * principal that opened it (its approvals, results, workspace, memory and sandbox sessions), and
 * refused to any other. Elicitation goes out on the call's own response stream; a client that
 * disconnects mid-call cancels the call. Without `resolvePrincipal` it serves the local user to
 * holders of its `token` only — listen on 127.0.0.1 then ({@link serveKsadkMcpHttp} does).
 *
 * @throws {KsadkError} `invalid_config` for unknown options or bad limits.
 *
 * @example
 * ```ts
 * const handler = createKsadkMcpHttpHandler({
 *   tools,
 *   gateway,
 *   resolvePrincipal: (request) => principalFromBearer(request.headers.authorization),
 * });
 * http.createServer((request, response) => void handler(request, response)).listen(8080);
 * ```
 */
export function createKsadkMcpHttpHandler(options: KsadkMcpHttpOptions): KsadkMcpHttpHandler {
  checkOptions(
    options,
    {
      ...SERVER_OPTIONS,
      resolvePrincipal: true,
      token: true,
      maxBodyBytes: true,
      maxSessions: true,
      maxSessionsPerPrincipal: true,
      idleMs: true,
    },
    'createKsadkMcpHttpHandler()',
  );
  const {
    resolvePrincipal,
    token: given,
    maxBodyBytes,
    maxSessions,
    maxSessionsPerPrincipal,
    idleMs,
    principal: local = { userId: 'local' },
    ...serverOptions
  } = options;
  const limit = maxBodyBytes ?? 4 * MiB;
  const most = maxSessions ?? 100;
  const mostEach = Math.min(maxSessionsPerPrincipal ?? 10, most);
  const idle = idleMs ?? 30 * 60_000;
  for (const [name, value] of [
    ['maxBodyBytes', limit],
    ['maxSessions', most],
    ['maxSessionsPerPrincipal', mostEach],
    ['idleMs', idle],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new KsadkError('invalid_config', `${name} must be a positive integer.`);
  }
  if (given !== undefined && (typeof given !== 'string' || given.length < 16))
    throw new KsadkError('invalid_config', 'token must be a string of at least 16 characters.');
  const token = resolvePrincipal ? undefined : (given ?? randomBytes(24).toString('base64url'));
  // Fails now, not at the first request, for options the server itself refuses.
  createKsadkMcpServer(serverOptions);
  const sessions = new Map<string, Session>();

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values())
        if (session.open === 0 && now - session.lastSeen > idle) void session.transport.close();
    },
    Math.min(idle, 60_000),
  );
  sweep.unref();

  const principalOf = async (request: IncomingMessage): Promise<KsadkMcpPrincipal | undefined> => {
    if (resolvePrincipal) return (await resolvePrincipal(request)) ?? undefined;
    const header = request.headers.authorization ?? '';
    const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
    return bearer && token && sameToken(bearer, token) ? local : undefined;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let principal: KsadkMcpPrincipal | undefined;
    try {
      principal = await principalOf(request);
    } catch {
      principal = undefined;
    }
    if (!principal) return answer(response, 401, 'Unauthorized.');
    const owner = ownerOf(principal);
    const body =
      request.method === 'POST' ? await bodyOf(request, response, limit) : { value: undefined };
    if (!body) return;
    const id = request.headers['mcp-session-id'];
    let session: Session | undefined;
    if (typeof id === 'string') {
      session = sessions.get(id);
      // Another principal's session is as unknown as a made-up one.
      if (!session || session.owner !== owner)
        return answer(response, 404, 'Session not found.', -32001);
    } else {
      if (request.method !== 'POST' || !isInitialize(body.value))
        return answer(response, 400, 'No session: start with an initialize request.');
      let own = 0;
      for (const open of sessions.values()) if (open.owner === owner) own += 1;
      if (own >= mostEach)
        return answer(response, 503, 'Too many open sessions for this principal; close one first.');
      if (sessions.size >= most)
        return answer(response, 503, 'Too many open sessions; try again later.');
      const server = createKsadkMcpServer({ ...serverOptions, principal });
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        void server.close().catch(() => undefined);
      };
      const created: Session = { transport, server, owner, lastSeen: Date.now(), open: 0 };
      session = created;
      await server.connect(transport);
    }
    const current = session;
    current.lastSeen = Date.now();
    current.open += 1;
    response.once('close', () => {
      current.open -= 1;
      current.lastSeen = Date.now();
    });
    const calls = callIdsOf(body.value);
    if (calls.length > 0) {
      // A client gone mid-call (its response stream closed early) cancels its calls.
      const transport = session.transport;
      response.once('close', () => {
        if (response.writableFinished) return;
        for (const requestId of calls)
          transport.onmessage?.({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId, reason: 'The client disconnected.' },
          });
      });
    }
    await session.transport.handleRequest(request, response, body.value);
  };

  return Object.assign(handle, {
    token,
    sessions: () => sessions.size,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((session) => session.transport.close()));
      sessions.clear();
    },
  });
}

/** Options for {@link serveKsadkMcpHttp}. */
export interface ServeKsadkMcpHttpOptions extends KsadkMcpHttpOptions {
  /** Where to listen. @default '127.0.0.1' (another address needs `resolvePrincipal`) */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** The path of the MCP endpoint. @default '/mcp' */
  readonly path?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Starts a `node:http` server for {@link createKsadkMcpHttpHandler} and returns its URL (and, for
 * the local user, the token clients send as `Authorization: Bearer …`).
 *
 * @throws {KsadkError} `invalid_config` for a non-loopback `host` without `resolvePrincipal`.
 *
 * @example
 * ```ts
 * const { url, token, close } = await serveKsadkMcpHttp({ tools, gateway });
 * console.error(`MCP at ${url}, token ${token}`);
 * ```
 */
export async function serveKsadkMcpHttp(
  options: ServeKsadkMcpHttpOptions,
): Promise<{ url: string; token: string | undefined; close(): Promise<void> }> {
  const { host = '127.0.0.1', port = 0, path = '/mcp', ...handlerOptions } = options;
  if (!handlerOptions.resolvePrincipal && !LOOPBACK.has(host))
    throw new KsadkError(
      'invalid_config',
      `Listening on ${host} needs resolvePrincipal: without it the server serves one local user, on 127.0.0.1 only.`,
    );
  const handler = createKsadkMcpHttpHandler(handlerOptions);
  const server = createServer((request, response) => {
    if ((request.url ?? '').split('?')[0] !== path) return answer(response, 404, 'Not found.');
    handler(request, response).catch(() => answer(response, 500, 'Internal error.'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}${path}`,
    token: handler.token,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
