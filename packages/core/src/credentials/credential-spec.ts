import { KsadkError } from '../errors/ksadk-error.js';

/** How a tool authenticates as the user. */
export type CredentialKind = 'oauth2' | 'api_key' | 'bearer';

/** Where an OAuth 2.0 authorization code is obtained and exchanged (authorization code + PKCE). */
export interface OAuthClientConfig {
  /** The authorization server's issuer (its metadata's `issuer`). */
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  /** For a confidential client (sent as `client_secret_post`); a public client has none. */
  readonly clientSecret?: string;
  /** Where the authorization server sends the user back (the host's callback route). */
  readonly redirectUri: string;
  /**
   * The protected resource the token is for (RFC 8707 `resource`), sent with the authorization and
   * token requests: an MCP server's URL, so its token is good for that server only.
   */
  readonly resource?: string;
}

/** A credential a tool asks for, by the id the host configures it under. */
export interface CredentialSpec {
  /** `^[a-z0-9][a-z0-9_.-]{0,63}$` — `github`, `google.drive`. */
  readonly id: string;
  readonly kind: CredentialKind;
  /** OAuth scopes the tool needs (the least it can do with). @default [] */
  readonly scopes: readonly string[];
  /** What the human is told the credential is for. */
  readonly description?: string;
  /** Required for `oauth2`. */
  readonly oauth?: OAuthClientConfig;
}

/** A credential spec as written in a tool definition. */
export type CredentialSpecInput = Omit<CredentialSpec, 'scopes'> & {
  readonly scopes?: readonly string[];
};

const ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;

function checkUrl(value: unknown, what: string, tool: string): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new KsadkError('invalid_tool', `Tool "${tool}": ${what} must be an absolute URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new KsadkError('invalid_tool', `Tool "${tool}": ${what} must be an http(s) URL.`);
  return url.toString();
}

/** The issuer as written, once it is found to be an http(s) URL. */
function checkedIssuer(issuer: string, tool: string): string {
  checkUrl(issuer, 'oauth.issuer', tool);
  return issuer;
}

/**
 * A tool's credential specs, checked and frozen: ids unique and well-formed, scopes RFC 6749
 * scope tokens, `oauth2` with its endpoints.
 *
 * @throws {KsadkError} `invalid_tool` naming the tool and the problem.
 */
export function normalizeCredentialSpecs(
  input: readonly CredentialSpecInput[] | undefined,
  tool: string,
): readonly CredentialSpec[] {
  if (input === undefined) return Object.freeze([]);
  if (!Array.isArray(input) || input.length > 16)
    throw new KsadkError(
      'invalid_tool',
      `Tool "${tool}": credentials must be a list of at most 16.`,
    );
  const seen = new Set<string>();
  return Object.freeze(
    input.map((spec) => {
      if (
        typeof spec !== 'object' ||
        spec === null ||
        typeof spec.id !== 'string' ||
        !ID.test(spec.id)
      )
        throw new KsadkError('invalid_tool', `Tool "${tool}": a credential id must match ${ID}.`);
      if (seen.has(spec.id))
        throw new KsadkError(
          'invalid_tool',
          `Tool "${tool}": credential "${spec.id}" is declared twice.`,
        );
      seen.add(spec.id);
      if (spec.kind !== 'oauth2' && spec.kind !== 'api_key' && spec.kind !== 'bearer')
        throw new KsadkError(
          'invalid_tool',
          `Tool "${tool}": credential "${spec.id}" kind must be oauth2, api_key or bearer.`,
        );
      const scopes = spec.scopes ?? [];
      if (
        !Array.isArray(scopes) ||
        scopes.some((scope) => typeof scope !== 'string' || !SCOPE.test(scope))
      )
        throw new KsadkError(
          'invalid_tool',
          `Tool "${tool}": credential "${spec.id}" scopes must be OAuth scope tokens.`,
        );
      let oauth: OAuthClientConfig | undefined;
      if (spec.kind === 'oauth2') {
        const given = spec.oauth;
        if (!given || typeof given.clientId !== 'string' || given.clientId === '')
          throw new KsadkError(
            'invalid_tool',
            `Tool "${tool}": oauth2 credential "${spec.id}" needs oauth: { issuer, authorizationEndpoint, tokenEndpoint, clientId, redirectUri }.`,
          );
        oauth = Object.freeze({
          // Checked, but kept as written: it is compared with the authorization server's own `iss`.
          issuer: checkedIssuer(given.issuer, tool),
          authorizationEndpoint: checkUrl(
            given.authorizationEndpoint,
            'oauth.authorizationEndpoint',
            tool,
          ),
          tokenEndpoint: checkUrl(given.tokenEndpoint, 'oauth.tokenEndpoint', tool),
          clientId: given.clientId,
          ...(given.clientSecret !== undefined ? { clientSecret: given.clientSecret } : {}),
          redirectUri: checkUrl(given.redirectUri, 'oauth.redirectUri', tool),
          ...(given.resource !== undefined
            ? { resource: checkUrl(given.resource, 'oauth.resource', tool) }
            : {}),
        });
      }
      return Object.freeze({
        id: spec.id,
        kind: spec.kind,
        scopes: Object.freeze([...new Set(scopes)].sort()),
        ...(spec.description !== undefined
          ? { description: String(spec.description).slice(0, 300) }
          : {}),
        ...(oauth ? { oauth } : {}),
      });
    }),
  );
}
