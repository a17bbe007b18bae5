import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type ApprovalPrincipal, KsadkError } from '@ksadk/core';
import { failure, headersFor } from './http-kit.js';

/** Who looks at the console: an account (and user), or `{ admin: true }` for every account. */
export type ConsolePrincipal = ApprovalPrincipal;

/** Resolves who sent a request (a session cookie, a bearer token, a proxy header…). */
export type ResolvePrincipal = (
  request: Request,
) => ConsolePrincipal | undefined | Promise<ConsolePrincipal | undefined>;

/** The cookie that carries the token on loopback, once the page was opened with it. */
const COOKIE = 'ksadk_console';
/** The header every change carries, with the page's token against cross-site requests. */
export const CSRF_HEADER = 'x-ksadk-csrf';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const same = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The principal as one comparable string (watchers and CSRF tokens are keyed by it). */
export const principalKey = (principal: ConsolePrincipal): string =>
  'admin' in principal
    ? '["admin"]'
    : JSON.stringify([principal.accountId, principal.userId ?? null]);

/** How the console names the principal on its pages. */
export const principalName = (principal: ConsolePrincipal): string =>
  'admin' in principal
    ? 'admin (every account)'
    : principal.userId !== undefined
      ? `${principal.userId} (account ${principal.accountId || 'default'})`
      : `account ${principal.accountId || 'default'}`;

/** A principal as `resolvePrincipal` must give it, or `undefined` for anything else. */
function checked(value: unknown): ConsolePrincipal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const shape = value as { admin?: unknown; accountId?: unknown; userId?: unknown };
  if ('admin' in shape)
    return shape.admin === true && !('accountId' in shape) ? { admin: true } : undefined;
  if (typeof shape.accountId !== 'string') return undefined;
  if (shape.userId !== undefined && typeof shape.userId !== 'string') return undefined;
  return {
    accountId: shape.accountId,
    ...(shape.userId !== undefined ? { userId: shape.userId } : {}),
  };
}

/** The value of one cookie of a request. */
function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** What authentication decided: who it is, or the answer to send instead. */
export type Authenticated = { principal: ConsolePrincipal } | { response: Response };

/** The console's sign-in and cross-site checks. */
export interface ConsoleAuth {
  /** The token the page is opened with, when the console serves one local user. */
  readonly token: string | undefined;
  authenticate(request: Request, url: URL): Promise<Authenticated>;
  /** The token the page sends back with every change (bound to the principal). */
  csrfToken(principal: ConsolePrincipal): string;
  /** Why a change request is refused as cross-site, or `undefined` when it may proceed. */
  crossSite(request: Request, url: URL, principal: ConsolePrincipal): string | undefined;
}

/** Options of {@link createConsoleAuth}. */
export interface ConsoleAuthOptions {
  /** The path the console is served under: the local user's cookie is scoped to it. */
  readonly basePath: string;
  readonly resolvePrincipal: ResolvePrincipal | undefined;
  readonly principal: ConsolePrincipal;
  readonly token: string | undefined;
  readonly csrfSecret: string | Uint8Array | undefined;
}

/**
 * Sign-in for the console. With `resolvePrincipal`, the host says who each request is. Without
 * it, one local user: every request needs the token (in the URL once — it becomes an HttpOnly,
 * SameSite=Strict cookie and leaves the address bar — or as a bearer token), and only loopback
 * host names are answered (a DNS-rebinding page cannot reach it).
 */
export function createConsoleAuth(options: ConsoleAuthOptions): ConsoleAuth {
  const { resolvePrincipal, principal: local } = options;
  if (
    options.token !== undefined &&
    (typeof options.token !== 'string' || options.token.length < 16)
  )
    throw new KsadkError('invalid_config', 'token must be a string of at least 16 characters.');
  if (checked(local) === undefined)
    throw new KsadkError(
      'invalid_config',
      'principal must be { accountId: string, userId?: string } or { admin: true }.',
    );
  const secret = options.csrfSecret ?? randomBytes(32);
  if (secret.length < 16)
    throw new KsadkError('invalid_config', 'csrfSecret must be at least 16 bytes.');
  const token = resolvePrincipal
    ? undefined
    : (options.token ?? randomBytes(24).toString('base64url'));

  const unauthorized = (): { response: Response } => ({
    response: failure(401, 'unauthorized', 'Sign in first: open the URL the console printed.'),
  });

  const localUser = async (request: Request, url: URL): Promise<Authenticated> => {
    if (!LOOPBACK_HOSTS.has(url.hostname))
      return {
        response: failure(421, 'misdirected', 'This console answers loopback host names only.'),
      };
    const given = url.searchParams.get('token');
    if (given !== null) {
      if (!token || !same(given, token)) return unauthorized();
      // The token becomes a cookie and leaves the address bar (and the browser's history).
      url.searchParams.delete('token');
      return {
        response: new Response(null, {
          status: 303,
          headers: headersFor('text/plain; charset=utf-8', {
            location: `./${url.search}`,
            'set-cookie': `${COOKIE}=${token}; Path=${options.basePath}; HttpOnly; SameSite=Strict`,
          }),
        }),
      };
    }
    const bearer = /^Bearer (.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const presented = bearer ?? cookieOf(request, COOKIE);
    return presented && token && same(presented, token) ? { principal: local } : unauthorized();
  };

  const csrfToken = (principal: ConsolePrincipal): string =>
    createHmac('sha256', secret).update(principalKey(principal)).digest('base64url');

  return {
    token,
    csrfToken,
    async authenticate(request, url) {
      if (!resolvePrincipal) return localUser(request, url);
      let resolved: unknown;
      try {
        resolved = await resolvePrincipal(request);
      } catch {
        return unauthorized();
      }
      if (resolved === undefined || resolved === null) return unauthorized();
      const principal = checked(resolved);
      if (!principal)
        return {
          response: failure(
            500,
            'invalid_principal',
            'resolvePrincipal gave something that is not { accountId, userId? } or { admin: true }.',
          ),
        };
      return { principal };
    },
    crossSite(request, url, principal) {
      const site = request.headers.get('sec-fetch-site');
      if (site !== null && site !== 'same-origin') return `a ${site} request`;
      const origin = request.headers.get('origin');
      if (origin !== null) {
        let host: string | undefined;
        try {
          host = new URL(origin).host;
        } catch {
          host = undefined;
        }
        if (host !== url.host) return 'a request from another origin';
      }
      const sent = request.headers.get(CSRF_HEADER);
      if (!sent || !same(sent, csrfToken(principal))) return 'a request without the page token';
      return undefined;
    },
  };
}
