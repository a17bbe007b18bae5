import { isPlainObject } from '../util/plain-object.js';

/**
 * Signing users in to an MCP server that requires OAuth (the MCP authorization flow): the server's
 * protected-resource and authorization-server metadata are discovered, a client is registered
 * (dynamic client registration) unless one is given, and each account's user signs in through
 * the `credential_required` pause. Tokens are kept per account and user in the gateway's
 * credential store.
 */
export interface McpOAuthOptions {
  /** Where the authorization server sends the user back (the host's callback route). */
  readonly redirectUri: string;
  /** A client registered in advance; without it the client registers itself when the server offers it. */
  readonly clientId?: string;
  /** The client's secret, for a confidential client given by `clientId`. */
  readonly clientSecret?: string;
  /** Scopes asked for. @default the protected resource's `scopes_supported`, else none */
  readonly scopes?: readonly string[];
  /** The id the tokens are stored under. @default `mcp.<server name>` */
  readonly credentialId?: string;
}

const WIRE: Readonly<Record<string, string>> = {
  redirect_uri: 'redirectUri',
  client_id: 'clientId',
  client_secret: 'clientSecret',
  credential_id: 'credentialId',
};
const FIELDS = new Set(['redirectUri', 'clientId', 'clientSecret', 'scopes', 'credentialId']);
const ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;

/** The credential id a server's tokens are stored under when none is configured. */
export const defaultMcpCredentialId = (server: string): string =>
  `mcp.${
    server
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 59) || 'server'
  }`;

/**
 * `oauth` of one HTTP server entry, checked: camelCase or snake_case fields, an http(s)
 * `redirectUri`, scope tokens, a credential id like a tool's.
 *
 * @returns the options, or the message of what is wrong (never a secret).
 */
export function checkMcpOAuth(value: unknown): McpOAuthOptions | string {
  if (!isPlainObject(value)) return 'must be an object: { redirectUri, clientId?, scopes? }';
  const entry: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = WIRE[key] ?? key;
    if (!FIELDS.has(name)) return `unknown field ${JSON.stringify(key.slice(0, 40))}`;
    entry[name] = field;
  }
  let redirect: URL | undefined;
  try {
    redirect = new URL(String(entry['redirectUri']));
  } catch {
    redirect = undefined;
  }
  if (typeof entry['redirectUri'] !== 'string' || !redirect || !/^https?:$/.test(redirect.protocol))
    return 'redirectUri must be an absolute http(s) URL (the host route the user comes back to)';
  for (const field of ['clientId', 'clientSecret'] as const) {
    const given = entry[field];
    if (given !== undefined && (typeof given !== 'string' || given.trim() === ''))
      return `${field} must be a non-empty string`;
  }
  if (entry['clientSecret'] !== undefined && entry['clientId'] === undefined)
    return 'clientSecret needs the clientId it belongs to';
  const scopes = entry['scopes'];
  if (
    scopes !== undefined &&
    (!Array.isArray(scopes) ||
      scopes.length > 64 ||
      scopes.some((scope) => typeof scope !== 'string' || !SCOPE.test(scope)))
  )
    return 'scopes must be a list of OAuth scope tokens';
  const id = entry['credentialId'];
  if (id !== undefined && (typeof id !== 'string' || !ID.test(id)))
    return `credentialId must match ${ID}`;
  return {
    redirectUri: redirect.toString(),
    ...(entry['clientId'] !== undefined ? { clientId: String(entry['clientId']).trim() } : {}),
    ...(entry['clientSecret'] !== undefined ? { clientSecret: String(entry['clientSecret']) } : {}),
    ...(scopes !== undefined ? { scopes: [...new Set(scopes as string[])].sort() } : {}),
    ...(id !== undefined ? { credentialId: id as string } : {}),
  };
}
