import type * as Oauth from 'oauth4webapi';
import { KsadkError } from '../errors/ksadk-error.js';
import { readBodyAtMost } from '../util/body-limit.js';
import type { OAuthClientConfig } from './credential-spec.js';

/** The tokens an authorization server granted. */
export interface TokenSet {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch ms, when the server said. */
  readonly expiresAt?: number;
  /** The scopes granted, when the server said (else the ones asked for). */
  readonly scopes?: readonly string[];
}

/** The OAuth library, loaded on first use (importing core never loads it). */
const library = (): Promise<typeof Oauth> => import('oauth4webapi');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The library's view of our client and its server; plain http only for a loopback server. */
function parties(oauth: typeof Oauth, config: OAuthClientConfig) {
  const as: Oauth.AuthorizationServer = {
    issuer: config.issuer,
    authorization_endpoint: config.authorizationEndpoint,
    token_endpoint: config.tokenEndpoint,
  };
  const client: Oauth.Client = { client_id: config.clientId };
  const auth = config.clientSecret ? oauth.ClientSecretPost(config.clientSecret) : oauth.None();
  const insecure = [config.tokenEndpoint].some((endpoint) => {
    const url = new URL(endpoint);
    return url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  });
  return { as, client, auth, insecure };
}

/** A fresh authorization request: where to send the user, and the state and verifier to keep. */
export async function startAuthorization(
  config: OAuthClientConfig,
  scopes: readonly string[],
): Promise<{ url: string; state: string; verifier: string }> {
  const oauth = await library();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(config.authorizationEndpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', config.redirectUri);
  if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  if (config.resource) url.searchParams.set('resource', config.resource);
  return { url: url.toString(), state, verifier };
}

const TOKEN_TIMEOUT_MS = 15_000;

/** The `resource` a token request names (RFC 8707), when the client has one. */
const resourceOf = (config: OAuthClientConfig) =>
  config.resource ? { additionalParameters: { resource: config.resource } } : {};

function tokensOf(
  response: Oauth.TokenEndpointResponse,
  asked: readonly string[],
  now: number,
): TokenSet {
  if (typeof response.access_token !== 'string' || response.access_token.length < 8)
    throw new KsadkError(
      'credential_refused',
      'The authorization server sent no usable access token.',
    );
  return {
    accessToken: response.access_token,
    ...(typeof response.refresh_token === 'string' ? { refreshToken: response.refresh_token } : {}),
    ...(typeof response.expires_in === 'number' && Number.isFinite(response.expires_in)
      ? { expiresAt: now + Math.min(Math.max(response.expires_in, 0), MAX_EXPIRES_IN_S) * 1000 }
      : {}),
    scopes:
      typeof response.scope === 'string' ? response.scope.split(' ').filter(Boolean).sort() : asked,
  };
}

/** The error codes of RFC 6749 (and RFC 6750): the only server words a message repeats. */
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'unsupported_response_type',
  'invalid_scope',
  'access_denied',
  'server_error',
  'temporarily_unavailable',
  'invalid_token',
]);

/** A failure of the flow, as the host learns it: never the server's own text (it may echo secrets). */
function refused(error: unknown, what: string): KsadkError {
  if (KsadkError.isInstance(error)) return error;
  const given = (error as { error?: unknown })?.error;
  const code = typeof given === 'string' && OAUTH_ERRORS.has(given) ? ` (${given})` : '';
  return new KsadkError('credential_refused', `${what} failed${code}.`);
}

/** The most a token endpoint may answer, in bytes. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** `fetch` for the token endpoint and metadata: no redirect; an answer past {@link MAX_TOKEN_RESPONSE_BYTES} is refused unread. */
export async function limitedFetch(url: string, init: RequestInit): Promise<Response> {
  const answer = await fetch(url, { ...init, redirect: 'error' });
  const { bytes, truncated } = answer.body
    ? await readBodyAtMost(answer.body, MAX_TOKEN_RESPONSE_BYTES)
    : { bytes: Buffer.alloc(0), truncated: false };
  if (truncated)
    throw new KsadkError('credential_refused', 'The token endpoint answered too much.');
  return new Response(bytes, { status: answer.status, headers: answer.headers });
}

/** The most an `expires_in` is believed: a year. */
const MAX_EXPIRES_IN_S = 365 * 24 * 3600;

/**
 * Checks the callback the user came back with (its `state`, no `error`) and exchanges its code,
 * with the PKCE verifier, for tokens.
 *
 * @throws {KsadkError} `credential_refused` for a callback that does not belong to the request, a
 * denied sign-in, or a failed exchange.
 */
export async function exchangeCallback(
  config: OAuthClientConfig,
  callbackUrl: string,
  expected: { state: string; verifier: string; scopes: readonly string[] },
  now: number,
  /** Runs once the callback is found to be this request's, before the code is exchanged. */
  beforeExchange: () => Promise<void>,
): Promise<TokenSet> {
  const oauth = await library();
  const { as, client, auth, insecure } = parties(oauth, config);
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    throw new KsadkError('credential_refused', 'The callback URL is not a URL.');
  }
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, url, expected.state);
  } catch (error) {
    throw refused(error, 'The sign-in callback check');
  }
  // Only a callback that carries a code may use the request (the state alone is public).
  if (!params.get('code'))
    throw new KsadkError('credential_refused', 'The callback carries no code.');
  await beforeExchange();
  try {
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      config.redirectUri,
      expected.verifier,
      {
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
        [oauth.allowInsecureRequests]: insecure,
        [oauth.customFetch]: limitedFetch,
        ...resourceOf(config),
      },
    );
    return tokensOf(
      await oauth.processAuthorizationCodeResponse(as, client, response),
      expected.scopes,
      now,
    );
  } catch (error) {
    throw refused(error, 'The code exchange');
  }
}

/** A refresh of `refreshToken`. @throws {KsadkError} `credential_refused` when it fails. */
export async function refreshTokens(
  config: OAuthClientConfig,
  refreshToken: string,
  scopes: readonly string[],
  now: number,
): Promise<TokenSet> {
  const oauth = await library();
  const { as, client, auth, insecure } = parties(oauth, config);
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, {
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      [oauth.allowInsecureRequests]: insecure,
      [oauth.customFetch]: limitedFetch,
      ...resourceOf(config),
    });
    const tokens = tokensOf(
      await oauth.processRefreshTokenResponse(as, client, response),
      scopes,
      now,
    );
    return tokens.refreshToken ? tokens : { ...tokens, refreshToken };
  } catch (error) {
    throw refused(error, 'The token refresh');
  }
}
