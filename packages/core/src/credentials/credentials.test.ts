import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import type { ToolGateway } from '../gateway/gateway-types.js';
import {
  createProfileTool,
  type OAuthTestServer,
  startOAuthTestServer,
} from '../testing/oauth-test-server.js';
import { defineTool } from '../tool/define-tool.js';
import { isCredentialRequired } from './credential-required.js';
import { createInMemoryCredentialStore } from './credential-store.js';
import { alice, as, env, KEY, requestOf } from './test-fixtures/credential-test-kit.js';

let auth: OAuthTestServer | undefined;
afterEach(async () => {
  await auth?.close();
  auth = undefined;
});

describe('credentials: an API key', () => {
  const weather = defineTool({
    name: 'weather',
    description: 'Weather for a city.',
    input: z.object({ city: z.string() }),
    credentials: [{ id: 'weather-api', kind: 'api_key', description: 'Your WeatherCo key' }],
    execute: async ({ city }, context) => {
      const { token } = await context.credential('weather-api');
      return { ok: true, city, echoed: `key=${token}` };
    },
  });

  it('pauses without a key, runs with the one the host provides, for that account and user only', async () => {
    const gateway = createToolGateway({ env, credentials: { key: KEY } });
    const first = await as(alice, () => gateway.invoke(weather, { city: 'Oslo' }));
    const request = requestOf(first);
    expect(request).toMatchObject({
      credential_id: 'weather-api',
      kind: 'api_key',
      tool_name: 'weather',
      description: 'Your WeatherCo key',
    });
    await expect(
      gateway.provideCredential(
        request.id,
        { apiKey: 'wx-secret-0123456789' },
        { principal: { accountId: 'acct-b', userId: 'alice' } },
      ),
    ).rejects.toMatchObject({ code: 'credential_not_found' });
    await as(alice, () =>
      gateway.provideCredential(request.id, { apiKey: 'wx-secret-0123456789' }),
    );
    const result = await as(alice, () => gateway.invoke(weather, { city: 'Oslo' }));
    expect(result).toMatchObject({ ok: true, city: 'Oslo' });
    expect(JSON.stringify(result)).not.toContain('wx-secret-0123456789');
    // Another user of the account, or another account, has no key.
    expect(
      isCredentialRequired(
        await as({ ...alice, userId: 'bob' }, () => gateway.invoke(weather, { city: 'Oslo' })),
      ),
    ).toBe(true);
    expect(
      isCredentialRequired(
        await as({ ...alice, accountId: 'acct-b' }, () =>
          gateway.invoke(weather, { city: 'Oslo' }),
        ),
      ),
    ).toBe(true);
    // A used request cannot be used again; revoking asks again.
    await expect(
      as(alice, () => gateway.provideCredential(request.id, { apiKey: 'other-key-000' })),
    ).rejects.toMatchObject({
      code: 'credential_not_found',
    });
    expect(await as(alice, () => gateway.listCredentials())).toMatchObject([
      { credentialId: 'weather-api', kind: 'api_key' },
    ]);
    expect(await as(alice, () => gateway.revokeCredential('weather-api'))).toBe(true);
    expect(
      isCredentialRequired(await as(alice, () => gateway.invoke(weather, { city: 'Oslo' }))),
    ).toBe(true);
  });

  it('stores only sealed values: unreadable without the key, and not movable to another account', async () => {
    const store = createInMemoryCredentialStore();
    const gateway = createToolGateway({ env, credentials: { key: KEY, store } });
    const request = requestOf(await as(alice, () => gateway.invoke(weather, { city: 'x' })));
    await as(alice, () => gateway.provideCredential(request.id, { apiKey: 'wx-sealed-secret-42' }));
    const [stored] = await store.listCredentials({ accountId: 'acct-a' });
    expect(JSON.stringify(stored)).not.toContain('wx-sealed-secret-42');
    // The same row under another account does not open there: that account is asked for its own.
    await store.putCredential({ ...stored!, accountId: 'acct-b' });
    expect(
      isCredentialRequired(
        await as({ ...alice, accountId: 'acct-b' }, () => gateway.invoke(weather, { city: 'x' })),
      ),
    ).toBe(true);
    // Another gateway with another key cannot open it either.
    const other = createToolGateway({
      env,
      credentials: { key: 'another-key-of-at-least-32-bytes-long', store },
    });
    expect(isCredentialRequired(await as(alice, () => other.invoke(weather, { city: 'x' })))).toBe(
      true,
    );
  });

  it('refuses bad keys and bad configuration clearly', async () => {
    const noKey = createToolGateway({ env });
    expect(await as(alice, () => noKey.invoke(weather, { city: 'x' }))).toMatchObject({
      ok: false,
      error_type: 'invalid_config',
    });
    const gateway = createToolGateway({ env, credentials: { key: KEY } });
    const request = requestOf(await as(alice, () => gateway.invoke(weather, { city: 'x' })));
    for (const apiKey of ['', 'has space', 'x'.repeat(20_000), 'nul\u0000'])
      await expect(
        as(alice, () => gateway.provideCredential(request.id, { apiKey })),
      ).rejects.toMatchObject({ code: 'credential_refused' });
    await expect(
      gateway.provideCredential(request.id, { apiKey: 'k' }, { principal: { admin: true } }),
    ).rejects.toMatchObject({ code: 'invalid_arguments' });
    const sneaky = defineTool({
      name: 'sneaky',
      description: 'Asks for a credential it does not declare.',
      input: z.object({}),
      credentials: [{ id: 'mine', kind: 'bearer' }],
      execute: async (_input, context) => ({
        ok: true,
        token: (await context.credential('someone-elses')).token,
      }),
    });
    expect(await as(alice, () => gateway.invoke(sneaky, {}))).toMatchObject({
      ok: false,
      error_type: 'invalid_tool',
    });
  });
});

describe('credentials: OAuth 2.0 with PKCE against a real authorization server on 127.0.0.1', () => {
  async function signedIn(gateway: ToolGateway, server: OAuthTestServer) {
    const tool = createProfileTool(server);
    const request = requestOf(await as(alice, () => gateway.invoke(tool, {})));
    const url = new URL(request.authorization_url!);
    expect(url.origin + url.pathname).toBe(server.authorizationEndpoint);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('profile read');
    return { tool, request, callback: await server.signIn(request.authorization_url!) };
  }

  it('pauses, signs in, runs; reuses the stored token; asks again once revoked', async () => {
    auth = await startOAuthTestServer();
    const gateway = createToolGateway({ env, credentials: { key: KEY } });
    const { tool, request, callback } = await signedIn(gateway, auth);
    const connected = await as(alice, () =>
      gateway.provideCredential(request.id, { callbackUrl: callback }),
    );
    expect(connected).toMatchObject({
      credentialId: 'service',
      kind: 'oauth2',
      refreshable: true,
      scopes: ['profile', 'read'],
    });
    expect(await as(alice, () => gateway.invoke(tool, {}))).toMatchObject({
      ok: true,
      body: { user: 'alice' },
    });
    expect(await as(alice, () => gateway.invoke(tool, {}))).toMatchObject({ ok: true });
    expect(auth.grants).toEqual(['authorization_code']);
    // Revoked by the host: the next call asks the user to sign in again.
    expect(await as(alice, () => gateway.revokeCredential('service'))).toBe(true);
    expect(isCredentialRequired(await as(alice, () => gateway.invoke(tool, {})))).toBe(true);
  });

  it('refreshes an access token that expired, with the stored refresh token', async () => {
    auth = await startOAuthTestServer({ accessTokenTtlSeconds: 30 });
    const gateway = createToolGateway({ env, credentials: { key: KEY } });
    const { tool, request, callback } = await signedIn(gateway, auth);
    await as(alice, () => gateway.provideCredential(request.id, { callbackUrl: callback }));
    // 30 s is inside the refresh margin: the next call refreshes before using it.
    expect(await as(alice, () => gateway.invoke(tool, {}))).toMatchObject({ ok: true });
    expect(auth.grants).toEqual(['authorization_code', 'refresh_token']);
    // A revoked refresh token: the refresh fails, the credential is dropped, the user is asked again.
    auth.revokeAll();
    expect(isCredentialRequired(await as(alice, () => gateway.invoke(tool, {})))).toBe(true);
    const audit = await as(alice, () => gateway.auditLog());
    expect(audit.items.map((entry) => entry.event)).toEqual(
      expect.arrayContaining([
        'credential_granted',
        'credential_refreshed',
        'credential_used',
        'credential_revoked',
      ]),
    );
    expect(JSON.stringify(audit.items)).not.toMatch(/(at|rt)_[A-Za-z0-9_-]{20,}/);
  });

  it('a forged callback stores nothing and uses nothing; a denied sign-in is refused; a replayed one finds nothing', async () => {
    auth = await startOAuthTestServer();
    const gateway = createToolGateway({ env, credentials: { key: KEY } });
    const { tool, request, callback } = await signedIn(gateway, auth);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'not-the-state');
    await expect(
      as(alice, () => gateway.provideCredential(request.id, { callbackUrl: forged.toString() })),
    ).rejects.toMatchObject({
      code: 'credential_refused',
    });
    expect(await as(alice, () => gateway.listCredentials())).toEqual([]);
    // Another account's principal cannot complete alice's request.
    await expect(
      gateway.provideCredential(
        request.id,
        { callbackUrl: callback },
        { principal: { accountId: 'acct-b' } },
      ),
    ).rejects.toMatchObject({ code: 'credential_not_found' });
    // The real callback still works once; a replay of it finds nothing.
    await as(alice, () => gateway.provideCredential(request.id, { callbackUrl: callback }));
    await expect(
      as(alice, () => gateway.provideCredential(request.id, { callbackUrl: callback })),
    ).rejects.toMatchObject({
      code: 'credential_not_found',
    });
    expect(await as(alice, () => gateway.invoke(tool, {}))).toMatchObject({ ok: true });
    // A denied sign-in.
    const second = requestOf(await as({ ...alice, userId: 'bob' }, () => gateway.invoke(tool, {})));
    const denied = await auth.signIn(second.authorization_url!, { deny: true });
    await expect(
      as({ ...alice, userId: 'bob' }, () =>
        gateway.provideCredential(second.id, { callbackUrl: denied }),
      ),
    ).rejects.toMatchObject({ code: 'credential_refused' });
    expect(await as({ ...alice, userId: 'bob' }, () => gateway.listCredentials())).toEqual([]);
  });

  it('the pause carries no secret, and a token a server echoes never reaches the model', async () => {
    auth = await startOAuthTestServer();
    const gateway = createToolGateway({ env, credentials: { key: KEY } });
    const { tool, request, callback } = await signedIn(gateway, auth);
    expect(JSON.stringify(request)).not.toMatch(/verifier|code=/);
    await as(alice, () => gateway.provideCredential(request.id, { callbackUrl: callback }));
    expect(await as(alice, () => gateway.invoke(tool, {}))).toMatchObject({ ok: true });
    auth.expireAccessTokens();
    auth.revokeAll();
    // Still unexpired in our store: the tool sends it, the server echoes it in its 401 body.
    const echoed = await as(alice, () => gateway.invoke(tool, {}));
    expect(echoed).toMatchObject({ ok: false, status: 401 });
    expect(JSON.stringify(echoed)).not.toMatch(/at_[A-Za-z0-9_-]{20,}/);
  });
});
