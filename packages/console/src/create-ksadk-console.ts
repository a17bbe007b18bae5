import type { IncomingMessage, ServerResponse } from 'node:http';
import { KsadkError, type Tool, type ToolGateway } from '@ksadk/core';
import { checkOptions, type OptionKeys } from '@ksadk/core/adapter';
import type { McpToolset } from '@ksadk/core/mcp';
import type { SkillLibrary } from '@ksadk/core/skills';
import { type AppAssets, assetResponse, loadAppAssets, shellPage } from './app-assets.js';
import {
  type ConsolePrincipal,
  createConsoleAuth,
  principalName,
  type ResolvePrincipal,
} from './console-auth.js';
import { createConsoleEvents } from './console-events.js';
import { failure, json, jsonBody } from './http-kit.js';
import { nodeHandlerOf } from './node-handler.js';
import { accountRoutes } from './routes/account-routes.js';
import { approvalRoutes } from './routes/approval-routes.js';
import { callRoutes } from './routes/call-routes.js';
import { mcpRoutes } from './routes/mcp-routes.js';
import { type ConsoleServices, type Route, SMALL_BODY } from './routes/route-kit.js';
import { skillRoutes } from './routes/skill-routes.js';

/** Options for {@link createKsadkConsole}. */
export interface KsadkConsoleOptions {
  /** The gateway whose approvals, calls and credentials the console shows and decides. */
  readonly gateway: ToolGateway;
  /**
   * Who sends a request (your session cookie, a bearer token, a proxy's header); `undefined`
   * answers 401. Everything the console shows or decides is that principal's own: another
   * account's request, call or output is "not found". Without it, the console serves one local
   * user who holds its `token`, on loopback host names only.
   */
  readonly resolvePrincipal?: ResolvePrincipal;
  /** Who the token holder is, without `resolvePrincipal`. @default `{ accountId: '' }` (single-tenant use) */
  readonly principal?: ConsolePrincipal;
  /** The token the page is opened with, without `resolvePrincipal`. @default a random one (see `token`) */
  readonly token?: string;
  /**
   * The secret the page tokens against cross-site requests are made with: the same on every
   * instance behind one address. @default random per console
   */
  readonly csrfSecret?: string | Uint8Array;
  /** The agent's tools: edited arguments are checked against their schemas before approval. */
  readonly tools?: readonly Tool[];
  /** The skills page's catalogue (local folders and skill spaces). */
  readonly skills?: SkillLibrary;
  /** The MCP page's servers. */
  readonly mcpServers?: readonly McpToolset[];
  /** A request body larger than this answers 413. @default 4 MiB */
  readonly maxBodyBytes?: number;
  /** How often the stores are looked at for live updates while a page is open. @default 250 */
  readonly pollMs?: number;
  /** Open live-update streams at most. @default 100 */
  readonly maxEventStreams?: number;
  /** Open live-update streams of one principal at most. @default 10 (never more than `maxEventStreams`) */
  readonly maxEventStreamsPerPrincipal?: number;
  /** The built browser app's folder. @default the package's own */
  readonly appDir?: string;
  /**
   * The path the console is served under, as requests reach the handler (`/console/` for a
   * Fetch-API server that hands over the full path; Express strips its mount path: leave it `/`).
   * The local user's cookie is scoped to it. @default '/'
   */
  readonly basePath?: string;
}

/** The console: a Fetch-API handler and a Node handler over the same routes. */
export interface KsadkConsole {
  /** For Fetch-API servers (Hono, Bun, Deno, `Request` → `Response`). */
  fetch(request: Request): Promise<Response>;
  /** For `node:http`, Express, Fastify's raw handler: `(req, res)`. */
  node(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The token to open the page with (`?token=…`), when the console serves one local user. */
  readonly token: string | undefined;
  /** Ends the live-update streams. */
  close(): Promise<void>;
}

const OPTIONS = {
  gateway: true,
  resolvePrincipal: true,
  principal: true,
  token: true,
  csrfSecret: true,
  tools: true,
  skills: true,
  mcpServers: true,
  maxBodyBytes: true,
  pollMs: true,
  maxEventStreams: true,
  maxEventStreamsPerPrincipal: true,
  appDir: true,
  basePath: true,
} as const satisfies OptionKeys<KsadkConsoleOptions>;

const ROUTES: readonly Route[] = [
  ...approvalRoutes,
  ...callRoutes,
  ...skillRoutes,
  ...accountRoutes,
  ...mcpRoutes,
];

const positive = (value: number | undefined, fallback: number, name: string): number => {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1)
    throw new KsadkError('invalid_config', `${name} must be a positive integer.`);
  return chosen;
};

/**
 * A web console for KsADK — the approvals inbox (approve, edit then approve, reject with a reason,
 * always for this session; live), the calls timeline with each call's arguments, result, saved
 * outputs and approval trail, the skills catalogue, connected accounts and MCP servers — as one
 * handler you mount in your own server (`console.node` for `node:http` and Express, `console.fetch`
 * for Fetch-API servers). Every read and decision goes through the gateway as the signed-in
 * principal; the page runs no inline code under a strict content security policy, changes need
 * the page token and the same origin, and everything a model wrote is shown as text.
 *
 * @throws {KsadkError} `invalid_config` for unknown options or bad limits; `setup` when the
 * browser app was not built.
 *
 * @example
 * ```ts
 * const console = createKsadkConsole({ gateway, tools, resolvePrincipal: (request) => sessionOf(request) });
 * http.createServer((request, response) => void console.node(request, response)).listen(3000);
 * ```
 */
export function createKsadkConsole(options: KsadkConsoleOptions): KsadkConsole {
  checkOptions(options, OPTIONS, 'createKsadkConsole()');
  const { gateway } = options;
  if (!gateway || typeof gateway.invoke !== 'function')
    throw new KsadkError('invalid_config', 'createKsadkConsole() needs the gateway.');
  const maxBodyBytes = positive(options.maxBodyBytes, 4 * 1024 * 1024, 'maxBodyBytes');
  const basePath = options.basePath ?? '/';
  if (typeof basePath !== 'string' || !/^\/([\w.~-]+\/)*$/.test(basePath))
    throw new KsadkError(
      'invalid_config',
      "basePath must be a path that starts and ends with '/'.",
    );
  const auth = createConsoleAuth({
    basePath,
    resolvePrincipal: options.resolvePrincipal,
    principal: options.principal ?? { accountId: '' },
    token: options.token,
    csrfSecret: options.csrfSecret,
  });
  const assets: AppAssets = loadAppAssets(options.appDir);
  const events = createConsoleEvents({
    gateway,
    pollMs: positive(options.pollMs, 250, 'pollMs'),
    maxStreams: positive(options.maxEventStreams, 100, 'maxEventStreams'),
    maxStreamsPerPrincipal: Math.min(
      positive(options.maxEventStreamsPerPrincipal, 10, 'maxEventStreamsPerPrincipal'),
      positive(options.maxEventStreams, 100, 'maxEventStreams'),
    ),
  });
  const tools = new Map<string, Tool>();
  for (const tool of options.tools ?? []) if (!tools.has(tool.name)) tools.set(tool.name, tool);
  const services: ConsoleServices = {
    gateway,
    tools,
    skills: options.skills,
    mcpServers: options.mcpServers ?? [],
    events,
    maxBodyBytes,
    operator: (principal) => !options.resolvePrincipal || 'admin' in principal,
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (`${url.pathname}/` === basePath)
      return new Response(null, { status: 308, headers: { location: `${basePath}${url.search}` } });
    if (!url.pathname.startsWith(basePath)) return failure(404, 'not_found', 'Not found.');
    const rest = url.pathname.slice(basePath.length);
    const asset = rest.startsWith('app/') ? assetResponse(assets, rest.slice(4)) : undefined;
    if (asset) return asset;
    const signedIn = await auth.authenticate(request, url);
    if ('response' in signedIn) return signedIn.response;
    const { principal } = signedIn;
    if (rest === '' || rest === 'index.html') {
      if (request.method !== 'GET') return failure(405, 'method_not_allowed', 'Use GET.');
      return shellPage(auth.csrfToken(principal), principalName(principal));
    }
    if (!rest.startsWith('api/')) return failure(404, 'not_found', 'Not found.');
    const path = rest.slice(4);
    if (request.method !== 'GET' && request.method !== 'POST')
      return failure(405, 'method_not_allowed', 'Use GET or POST.');
    if (request.method === 'POST') {
      const refused = auth.crossSite(request, url, principal);
      if (refused) return failure(403, 'cross_site', `Refused ${refused}.`);
    }
    if (path === 'events' && request.method === 'GET') return events.stream(principal);
    if (path === 'session' && request.method === 'GET')
      return json({ principal: principalName(principal), admin: 'admin' in principal });
    for (const route of ROUTES) {
      if (route.method !== request.method) continue;
      const match = route.path.exec(path);
      if (!match) continue;
      return route.handle({
        request,
        url,
        principal,
        params: match.slice(1),
        services,
        body: (limit = SMALL_BODY) => jsonBody(request, Math.min(limit, maxBodyBytes)),
      });
    }
    return failure(404, 'not_found', 'Not found.');
  };

  const fetch = async (request: Request): Promise<Response> => {
    try {
      return await handle(request);
    } catch {
      return failure(500, 'internal_error', 'The console could not answer; see the server log.');
    }
  };

  return {
    fetch,
    node: nodeHandlerOf(fetch, maxBodyBytes),
    token: auth.token,
    close: async () => events.close(),
  };
}
