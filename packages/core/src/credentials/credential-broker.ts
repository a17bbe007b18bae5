import { randomBytes } from 'node:crypto';
import type { InvocationContext } from '../context/invocation-context.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { gatewayFailure } from '../gateway/results.js';
import { recentKeys } from '../util/recent-keys.js';
import { registerSecret } from '../util/redact.js';
import { type CredentialKeys, open, seal } from './credential-crypto.js';
import type {
  CredentialRequest,
  CredentialRequiredResult,
  ToolCredential,
} from './credential-required.js';
import { CredentialRequiredSignal } from './credential-required.js';
import type { CredentialSpec, OAuthClientConfig } from './credential-spec.js';
import type {
  BoundOAuthClient,
  CredentialKey,
  CredentialStore,
  StoredCredential,
} from './credential-store.js';
import {
  exchangeCallback,
  refreshTokens,
  startAuthorization,
  type TokenSet,
} from './oauth-flow.js';

/** The secret part of a stored credential, before it is sealed. */
interface Secret {
  readonly token: string;
  readonly refreshToken?: string;
}

/** Who provides, lists or revokes a credential: an account and its user (never an admin). */
export interface CredentialPrincipal {
  readonly accountId: string;
  readonly userId?: string;
}

/** What the host answers a credential request with. */
export type CredentialAnswer =
  | { readonly callbackUrl: string }
  | { readonly apiKey: string }
  | { readonly token: string };

/** A connected account, as the host lists it: no secret. */
export interface ConnectedCredential {
  readonly credentialId: string;
  readonly kind: StoredCredential['kind'];
  readonly scopes: readonly string[];
  readonly userId: string;
  readonly expiresAt?: number;
  readonly refreshable: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What the broker writes to the audit log. */
export type CredentialAudit = (
  event: 'credential_granted' | 'credential_used' | 'credential_refreshed' | 'credential_revoked',
  facts: {
    accountId: string;
    userId: string;
    sessionId: string;
    toolName: string;
    credentialId: string;
  },
) => Promise<void>;

/** Options of {@link createCredentialBroker}. */
export interface CredentialBrokerOptions {
  readonly store: CredentialStore;
  /** Resolved on first use (a missing key is an error then, not at start). */
  readonly keys: () => CredentialKeys;
  /** How long a sign-in request stays open. */
  readonly requestTtlMs: number;
  readonly audit: CredentialAudit;
  /** OAuth clients by credential id, as the host configures them (they win over a tool's own). */
  readonly providers: Readonly<Record<string, { readonly oauth: OAuthClientConfig }>>;
  readonly now?: () => number;
}

/** A call asking for one of its tool's credentials. */
export interface CredentialCall {
  readonly toolName: string;
  readonly specs: readonly CredentialSpec[];
  readonly callId: string;
  readonly invocation: InvocationContext;
}

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000;
const MAX_SECRET_CHARS = 16 * 1024;
/** Shorter values cannot be told from ordinary text, so they cannot be redacted: refused. */
const MIN_SECRET_CHARS = 8;

/** The authenticated context a sealed secret belongs to: account, user, credential and scopes. */
const placeOf = (
  key: CredentialKey,
  scopes: readonly string[],
  client: BoundOAuthClient | undefined,
): string =>
  JSON.stringify([
    'ksadk.credential',
    key.accountId,
    key.userId,
    key.credentialId,
    scopes,
    // The client too, when bound: a row whose token endpoint was changed does not open.
    ...(client
      ? [
          client.issuer,
          client.authorizationEndpoint,
          client.tokenEndpoint,
          client.clientId,
          client.redirectUri,
          client.resource ?? '',
        ]
      : []),
  ]);

/** The client-facing facts of an OAuth client config: what requests and credentials are bound to. */
const boundOf = (config: OAuthClientConfig): BoundOAuthClient => ({
  issuer: config.issuer,
  authorizationEndpoint: config.authorizationEndpoint,
  tokenEndpoint: config.tokenEndpoint,
  clientId: config.clientId,
  redirectUri: config.redirectUri,
  ...(config.resource ? { resource: config.resource } : {}),
});

const requestPlace = (id: string): string => JSON.stringify(['ksadk.credential-request', id]);

/** The broker: hands tools their user's credentials, and takes what the host provides. */
export interface CredentialBroker {
  /**
   * The credential for `id` of this call's account and user; throws the pause when there is none.
   * With `rejectedToken` (the service refused that token): a stored credential still holding it
   * is refreshed, or dropped and asked for again.
   */
  credentialFor(
    call: CredentialCall,
    id: string,
    options?: { readonly rejectedToken?: string },
  ): Promise<ToolCredential>;
  /**
   * The stored token for `spec` of this account and user (refreshed near its expiry), or
   * `undefined`: never a request, never an audit record of use.
   */
  storedToken(invocation: InvocationContext, spec: CredentialSpec): Promise<string | undefined>;
  provide(
    requestId: string,
    answer: CredentialAnswer,
    principal: CredentialPrincipal,
  ): Promise<ConnectedCredential>;
  list(principal: CredentialPrincipal): Promise<ConnectedCredential[]>;
  revoke(credentialId: string, principal: CredentialPrincipal): Promise<boolean>;
}

const connected = (stored: StoredCredential, refreshable: boolean): ConnectedCredential => ({
  credentialId: stored.credentialId,
  kind: stored.kind,
  scopes: [...stored.scopes],
  userId: stored.userId,
  ...(stored.expiresAt !== undefined ? { expiresAt: stored.expiresAt } : {}),
  refreshable,
  createdAt: stored.createdAt,
  updatedAt: stored.updatedAt,
});

/** Creates a credential broker over a store. */
export function createCredentialBroker(options: CredentialBrokerOptions): CredentialBroker {
  const { store } = options;
  const now = options.now ?? Date.now;
  const oauthOf = (id: string, spec?: CredentialSpec): OAuthClientConfig | undefined =>
    options.providers[id]?.oauth ?? spec?.oauth;
  /** Client secrets of the OAuth clients this process's tools declared, by client (id and token endpoint). */
  const secrets = new Map<string, string>();
  const clientKey = (config: Pick<OAuthClientConfig, 'clientId' | 'tokenEndpoint'>): string =>
    JSON.stringify([config.clientId, config.tokenEndpoint]);
  /** A bound client with its secret, when this process knows it (configured, or declared by a tool). */
  const clientOf = (bound: BoundOAuthClient, credentialId: string): OAuthClientConfig => {
    const configured = oauthOf(credentialId);
    const clientSecret =
      configured && clientKey(configured) === clientKey(bound)
        ? configured.clientSecret
        : secrets.get(clientKey(bound));
    return { ...bound, ...(clientSecret ? { clientSecret } : {}) };
  };
  /** Refreshes in flight, by credential: concurrent calls near expiry share one. */
  const renewals = new Map<
    string,
    Promise<{ stored: StoredCredential; secret: Secret } | undefined>
  >();
  const recentlyUsed = recentKeys(10_000);

  /**
   * One refresh per credential at a time. A refresh that fails drops the credential only if the
   * row still holds what failed — another call may have refreshed it meanwhile.
   */
  const renewOnce = (
    call: CredentialCall,
    spec: CredentialSpec,
    stored: StoredCredential,
    secret: Secret,
  ): Promise<{ stored: StoredCredential; secret: Secret } | undefined> => {
    const id = JSON.stringify([stored.accountId, stored.userId, stored.credentialId]);
    const running = renewals.get(id);
    if (running) return running;
    const renewal = (async () => {
      const renewed = await refreshed(call, spec, stored, secret);
      if (renewed) return renewed;
      const current = await store.getCredential(stored);
      if (current && current.sealed.data !== stored.sealed.data) {
        const fresh = secretOf(current);
        return fresh ? { stored: current, secret: fresh } : undefined;
      }
      if (current) {
        await store.deleteCredential(stored);
        await options.audit('credential_revoked', {
          ...stored,
          sessionId: call.invocation.sessionId ?? '',
          toolName: call.toolName,
        });
      }
      return undefined;
    })().finally(() => renewals.delete(id));
    renewals.set(id, renewal);
    return renewal;
  };

  const keyOf = (invocation: InvocationContext, spec: CredentialSpec): CredentialKey => ({
    accountId: invocation.accountId ?? '',
    userId: invocation.userId ?? '',
    credentialId: spec.id,
  });

  /** The stored secret, opened; `undefined` when it does not open (moved, changed, key lost). */
  const secretOf = (stored: StoredCredential): Secret | undefined => {
    const text = open(options.keys(), stored.sealed, placeOf(stored, stored.scopes, stored.oauth));
    if (text === undefined) return undefined;
    try {
      const parsed = JSON.parse(text) as Secret;
      return typeof parsed.token === 'string' ? parsed : undefined;
    } catch {
      return undefined;
    }
  };

  const save = async (
    key: CredentialKey,
    spec: Pick<CredentialSpec, 'kind'>,
    scopes: readonly string[],
    secret: Secret,
    expiresAt: number | undefined,
    createdAt: number,
    client: BoundOAuthClient | undefined,
  ): Promise<StoredCredential> => {
    const at = now();
    const stored: StoredCredential = {
      ...key,
      kind: spec.kind,
      scopes: [...scopes],
      sealed: seal(options.keys(), JSON.stringify(secret), placeOf(key, scopes, client)),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      ...(client ? { oauth: client } : {}),
      createdAt,
      updatedAt: at,
    };
    await store.putCredential(stored);
    return stored;
  };

  /** A new request for `spec`, stored; the pause that carries it. */
  const pauseFor = async (
    call: CredentialCall,
    spec: CredentialSpec,
  ): Promise<CredentialRequiredResult> => {
    const at = now();
    const asked = await store.findPendingRequest({
      ...keyOf(call.invocation, spec),
      callId: call.callId,
      now: at,
    });
    // The same call replayed (a resumed checkpoint): the sign-in it already asked for.
    if (asked) return pauseOf(call, spec, asked);
    const id = `creq_${randomBytes(16).toString('hex')}`;
    const oauth = spec.kind === 'oauth2' ? oauthOf(spec.id, spec) : undefined;
    if (spec.kind === 'oauth2' && !oauth)
      throw new KsadkError(
        'invalid_config',
        `Credential "${spec.id}" is OAuth 2.0, but no client is configured for it: give the tool oauth: { … } or the gateway credentials: { providers: { "${spec.id}": { oauth } } }.`,
      );
    if (oauth?.clientSecret) secrets.set(clientKey(oauth), oauth.clientSecret);
    const flow = oauth ? await startAuthorization(oauth, spec.scopes) : undefined;
    const key = keyOf(call.invocation, spec);
    const expiresAt = at + options.requestTtlMs;
    await store.createRequest({
      id,
      accountId: key.accountId,
      userId: key.userId,
      sessionId: call.invocation.sessionId ?? '',
      credentialId: spec.id,
      kind: spec.kind,
      scopes: [...spec.scopes],
      toolName: call.toolName,
      callId: call.callId,
      ...(flow
        ? {
            oauth: boundOf(oauth!),
            state: flow.state,
            verifier: seal(options.keys(), flow.verifier, requestPlace(id)),
            authorizationUrl: flow.url,
          }
        : {}),
      status: 'pending',
      createdAt: at,
      expiresAt,
    });
    return pauseOf(call, spec, { id, authorizationUrl: flow?.url, expiresAt });
  };

  /** The model-facing pause of a stored request. */
  const pauseOf = (
    call: CredentialCall,
    spec: CredentialSpec,
    stored: { id: string; authorizationUrl?: string | undefined; expiresAt: number },
  ): CredentialRequiredResult => {
    const request: CredentialRequest = {
      id: stored.id,
      credential_id: spec.id,
      kind: spec.kind,
      scopes: [...spec.scopes],
      tool_name: call.toolName,
      ...(stored.authorizationUrl ? { authorization_url: stored.authorizationUrl } : {}),
      ...(spec.description ? { description: spec.description } : {}),
      expires_at: new Date(stored.expiresAt).toISOString(),
    };
    return gatewayFailure(
      'credential_required',
      `${call.toolName} needs the user to ${spec.kind === 'oauth2' ? 'sign in to' : 'provide a key for'} ${spec.id}. The request was sent to the user; wait for them, do not retry or work around it.`,
      { type: 'credential_required' as const, credential_request: request },
    );
  };

  /** A stored OAuth credential near its expiry, refreshed; `undefined` when it cannot be. */
  const refreshed = async (
    call: CredentialCall,
    spec: CredentialSpec,
    stored: StoredCredential,
    secret: Secret,
  ): Promise<{ stored: StoredCredential; secret: Secret } | undefined> => {
    // The client the token was issued to (a client registered by another process too).
    const oauth = stored.oauth ? clientOf(stored.oauth, spec.id) : oauthOf(spec.id, spec);
    if (!oauth || !secret.refreshToken) return undefined;
    try {
      const tokens: TokenSet = await refreshTokens(
        oauth,
        secret.refreshToken,
        stored.scopes,
        now(),
      );
      const next: Secret = {
        token: tokens.accessToken,
        ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
      };
      const saved = await save(
        stored,
        spec,
        stored.scopes,
        next,
        tokens.expiresAt,
        stored.createdAt,
        stored.oauth,
      );
      await options.audit('credential_refreshed', {
        ...stored,
        sessionId: call.invocation.sessionId ?? '',
        toolName: call.toolName,
      });
      return { stored: saved, secret: next };
    } catch {
      return undefined;
    }
  };

  /**
   * The stored credential of the call's account and user for `spec`, opened and refreshed near
   * its expiry (or when the service refused `rejected`, the token it holds); none when there is
   * none, it is for other scopes, or it cannot be opened or renewed.
   */
  const usable = async (
    call: CredentialCall,
    spec: CredentialSpec,
    rejected: string | undefined,
  ): Promise<{ stored?: StoredCredential; secret?: Secret }> => {
    let stored = await store.getCredential(keyOf(call.invocation, spec));
    // A credential granted for other scopes is not this tool's: it asks for its own.
    let secret =
      stored &&
      stored.kind === spec.kind &&
      sameScopes(stored.scopes, spec.scopes) &&
      sameServer(stored.oauth, oauthOf(spec.id, spec))
        ? secretOf(stored)
        : undefined;
    const refused = rejected !== undefined && secret?.token === rejected;
    if (
      stored &&
      secret &&
      (refused || (stored.expiresAt !== undefined && stored.expiresAt - REFRESH_MARGIN_MS <= now()))
    ) {
      const renewed = await renewOnce(call, spec, stored, secret);
      if (renewed && renewed.secret.token !== rejected) ({ stored, secret } = renewed);
      else secret = undefined;
    }
    return stored && secret ? { stored, secret } : {};
  };

  return {
    async storedToken(invocation, spec) {
      const { secret } = await usable(
        { toolName: '', specs: [spec], callId: '', invocation },
        spec,
        undefined,
      );
      if (secret) registerSecret(secret.token);
      return secret?.token;
    },

    async credentialFor(call, id, asked = {}) {
      const spec = call.specs.find((candidate) => candidate.id === id);
      if (!spec)
        throw new KsadkError(
          'invalid_tool',
          `Tool "${call.toolName}" asked for credential "${String(id).slice(0, 64)}", which it does not declare in credentials.`,
        );
      const key = keyOf(call.invocation, spec);
      const { stored, secret } = await usable(call, spec, asked.rejectedToken);
      if (!stored || !secret) throw new CredentialRequiredSignal(await pauseFor(call, spec));
      registerSecret(secret.token);
      // Once per call and credential: a tool that asks in a loop does not flood the log.
      const usedKey = JSON.stringify([call.callId, key.accountId, key.userId, key.credentialId]);
      if (!recentlyUsed.has(usedKey)) {
        recentlyUsed.add(usedKey);
        await options.audit('credential_used', {
          ...key,
          sessionId: call.invocation.sessionId ?? '',
          toolName: call.toolName,
        });
      }
      return {
        kind: spec.kind,
        token: secret.token,
        scopes: [...stored.scopes],
        ...(stored.expiresAt !== undefined ? { expiresAt: stored.expiresAt } : {}),
      };
    },

    async provide(requestId, answer, principal) {
      const notFound = () =>
        new KsadkError(
          'credential_not_found',
          'This credential request is unknown, used, expired, or not yours.',
        );
      if (typeof requestId !== 'string' || !/^creq_[0-9a-f]{32}$/.test(requestId)) throw notFound();
      const request = await store.getRequest(requestId);
      const at = now();
      if (
        request?.status !== 'pending' ||
        request.expiresAt <= at ||
        request.accountId !== principal.accountId ||
        (principal.userId !== undefined && request.userId !== principal.userId)
      )
        throw notFound();
      const key: CredentialKey = {
        accountId: request.accountId,
        userId: request.userId,
        credentialId: request.credentialId,
      };
      if (typeof answer !== 'object' || answer === null)
        throw new KsadkError(
          'credential_refused',
          'Provide { callbackUrl }, { apiKey } or { token }.',
        );
      let secret: Secret;
      let scopes = request.scopes;
      let expiresAt: number | undefined;
      if (request.kind === 'oauth2') {
        // The client the request was made for, and nothing else: its code goes to that server only.
        const bound = request.oauth;
        const spec = bound ? clientOf(bound, request.credentialId) : undefined;
        if (
          !('callbackUrl' in answer) ||
          typeof answer.callbackUrl !== 'string' ||
          answer.callbackUrl.length > 8192
        )
          throw new KsadkError(
            'credential_refused',
            'An OAuth credential is provided with { callbackUrl }.',
          );
        const verifier = request.verifier
          ? open(options.keys(), request.verifier, requestPlace(request.id))
          : undefined;
        if (!spec || !request.state || !verifier) throw notFound();
        // The callback is checked (state, no error) before the request is used: a forged one uses nothing.
        const tokens = await exchangeCallback(
          spec,
          answer.callbackUrl,
          { state: request.state, verifier, scopes },
          at,
          () =>
            store.useRequest(request.id, now()).then((used) => {
              if (!used) throw notFound();
            }),
        );
        secret = {
          token: tokens.accessToken,
          ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
        };
        scopes = request.scopes;
        expiresAt = tokens.expiresAt;
      } else {
        const value =
          'apiKey' in answer ? answer.apiKey : 'token' in answer ? answer.token : undefined;
        if (
          typeof value !== 'string' ||
          value.length < MIN_SECRET_CHARS ||
          value.length > MAX_SECRET_CHARS ||
          hasSpaceOrControl(value)
        )
          throw new KsadkError(
            'credential_refused',
            `The key must be ${MIN_SECRET_CHARS} to ${MAX_SECRET_CHARS} characters, without spaces or control characters.`,
          );
        if (!(await store.useRequest(request.id, now()))) throw notFound();
        secret = { token: value };
      }
      registerSecret(secret.token);
      if (secret.refreshToken) registerSecret(secret.refreshToken);
      const stored = await save(key, request, scopes, secret, expiresAt, at, request.oauth);
      await options.audit('credential_granted', {
        ...key,
        sessionId: request.sessionId,
        toolName: request.toolName,
      });
      return connected(stored, secret.refreshToken !== undefined);
    },

    async list(principal) {
      // An account-level principal is the account's own (no-user) credentials: what it may revoke.
      const all = await store.listCredentials({
        accountId: principal.accountId,
        userId: principal.userId ?? '',
      });
      return all.map((stored) => connected(stored, secretOf(stored)?.refreshToken !== undefined));
    },

    async revoke(credentialId, principal) {
      const key = { accountId: principal.accountId, userId: principal.userId ?? '', credentialId };
      const gone = await store.deleteCredential(key);
      if (gone) await options.audit('credential_revoked', { ...key, sessionId: '', toolName: '' });
      return gone;
    },
  };
}

/** Whether a key holds white space, a control, format or unpaired surrogate character (never in a real key). */
const hasSpaceOrControl = (value: string): boolean => /[\p{C}\p{Z}\s]/u.test(value);

/** Whether a token issued to `bound` is for the server `wanted` names: its issuer and resource. */
const sameServer = (
  bound: BoundOAuthClient | undefined,
  wanted: OAuthClientConfig | undefined,
): boolean =>
  !bound ||
  !wanted ||
  (bound.issuer === wanted.issuer && (bound.resource ?? '') === (wanted.resource ?? ''));

const sameScopes = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().every((scope, index) => scope === [...b].sort()[index]);
