import type { CredentialSpec, OAuthClientConfig } from '../credentials/credential-spec.js';
import { normalizeCredentialSpecs } from '../credentials/credential-spec.js';
import { limitedFetch } from '../credentials/oauth-flow.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { registerSecret } from '../util/redact.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import type { McpHttpServerConfig } from './mcp-config.js';
import { defaultMcpCredentialId, type McpOAuthOptions } from './mcp-oauth-config.js';

const DISCOVERY_TIMEOUT_MS = 10_000;

/** Metadata and registration requests: bounded in size and time, no redirects. */
const discoveryFetch = (url: string | URL, init?: RequestInit): Promise<Response> =>
  limitedFetch(String(url), { ...init, signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });

/** Whether two URLs are the same, one trailing slash aside. */
const sameUrl = (a: string, b: string): boolean => {
  try {
    const plain = (value: string) => new URL(value).href.replace(/\/$/, '');
    return plain(a) === plain(b);
  } catch {
    return false;
  }
};

const failed = (server: string, why: string): KsadkError =>
  new KsadkError(
    'service_unavailable',
    `MCP server ${server} requires OAuth, but signing in to it cannot be set up: ${why}.`,
  );

/**
 * The OAuth client for an MCP server (the MCP authorization flow): its protected-resource
 * metadata (RFC 9728) names the authorization server, whose metadata (RFC 8414 / OpenID
 * discovery) gives the endpoints; PKCE S256 must be offered; without a configured `clientId` a
 * client is registered (RFC 7591) when the server offers registration. The token is bound to the
 * server as its `resource` (RFC 8707).
 *
 * @throws {KsadkError} `service_unavailable` when the metadata is missing, unusable, or does not
 * belong to the server; or when no client can be had.
 */
export async function discoverMcpOAuthClient(
  config: McpHttpServerConfig & { readonly oauth: McpOAuthOptions },
): Promise<{ client: OAuthClientConfig; scopes: readonly string[] }> {
  const { discoverOAuthServerInfo, registerClient } = await import(
    '@modelcontextprotocol/sdk/client/auth.js'
  );
  const { oauth } = config;
  let info: Awaited<ReturnType<typeof discoverOAuthServerInfo>>;
  try {
    info = await discoverOAuthServerInfo(config.url, { fetchFn: discoveryFetch });
  } catch (error) {
    throw failed(config.name, `its metadata could not be read (${modelSafeErrorMessage(error)})`);
  }
  const metadata = info.authorizationServerMetadata;
  if (!metadata) throw failed(config.name, 'its authorization server publishes no metadata');
  if (!metadata.code_challenge_methods_supported?.includes('S256'))
    throw failed(config.name, 'its authorization server does not offer PKCE with S256');
  // The metadata must be the named server's own (RFC 8414 §3.3), else its endpoints are anyone's.
  if (!sameUrl(metadata.issuer, info.authorizationServerUrl))
    throw failed(config.name, 'its authorization server metadata names another issuer');
  // The resource the metadata names must be this server (else it speaks for another one).
  const resource = info.resourceMetadata?.resource ?? config.url;
  if (!sameUrl(resource, config.url))
    throw failed(config.name, 'its protected-resource metadata names another resource');
  let clientId = oauth.clientId;
  let clientSecret = oauth.clientSecret;
  if (!clientId) {
    if (!metadata.registration_endpoint)
      throw failed(
        config.name,
        'it offers no client registration; configure oauth.clientId of a client registered with it',
      );
    try {
      const registered = await registerClient(info.authorizationServerUrl, {
        metadata,
        clientMetadata: {
          client_name: 'KsADK',
          redirect_uris: [oauth.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        },
        fetchFn: discoveryFetch,
      });
      clientId = registered.client_id;
      clientSecret = registered.client_secret;
    } catch {
      // Not the server's words: a registration endpoint may be anything and say anything.
      throw failed(config.name, 'registering a client failed');
    }
  }
  if (clientSecret) registerSecret(clientSecret);
  const client: OAuthClientConfig = {
    issuer: metadata.issuer,
    authorizationEndpoint: metadata.authorization_endpoint,
    tokenEndpoint: metadata.token_endpoint,
    clientId,
    ...(clientSecret ? { clientSecret } : {}),
    redirectUri: oauth.redirectUri,
    resource,
  };
  const scopes = oauth.scopes ?? info.resourceMetadata?.scopes_supported ?? [];
  return { client, scopes };
}

/** The credential the tools of an OAuth MCP server declare: the server's own, per account and user. */
export function mcpCredentialSpec(
  config: McpHttpServerConfig & { readonly oauth: McpOAuthOptions },
  discovered: { client: OAuthClientConfig; scopes: readonly string[] },
): CredentialSpec {
  const [spec] = normalizeCredentialSpecs(
    [
      {
        id: config.oauth.credentialId ?? defaultMcpCredentialId(config.name),
        kind: 'oauth2',
        scopes: discovered.scopes,
        description: `Sign in to MCP server ${config.name}.`,
        oauth: discovered.client,
      },
    ],
    `mcp:${config.name}`,
  );
  return spec!;
}
