import { afterEach, describe, expect, it } from 'vitest';
import {
  alice,
  as,
  env,
  KEY,
  type Person,
  requestOf,
} from '../credentials/test-fixtures/credential-test-kit.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { type McpTestServer, startMcpTestServer } from '../testing/mcp-test-server.js';
import {
  type OAuthTestServer,
  startOAuthTestServer,
  startProtectedMcpTestServers,
} from '../testing/oauth-test-server.js';
import type { Tool } from '../tool/tool.js';
import { loadMcpToolsets } from './load-mcp-toolsets.js';
import { parseMcpServerConfigs } from './mcp-config.js';
import { createMcpToolset, type McpToolset } from './mcp-toolset.js';

const REDIRECT = 'http://127.0.0.1/callback';
const bob: Person = { accountId: 'acct-b', userId: 'bob', sessionId: 's2' };

const named = (tools: Tool[], name: string): Tool => {
  const found = tools.find((tool) => tool.name === name);
  if (!found) throw new Error(`no tool ${name} in ${tools.map((tool) => tool.name).join(', ')}`);
  return found;
};

let auth: OAuthTestServer;
let mcp: McpTestServer;
let toolset: McpToolset | undefined;
afterEach(async () => {
  await toolset?.close();
  toolset = undefined;
  await mcp?.close();
  await auth?.close();
});

/** An OAuth server, an MCP server it protects (the SDK's bearer middleware), and a toolset for it. */
async function setUp(oauth: Record<string, unknown> = { redirectUri: REDIRECT }) {
  ({ auth, mcp } = await startProtectedMcpTestServers({ redirectUri: REDIRECT }));
  const { configs, problems } = parseMcpServerConfigs([
    { name: 'files', url: mcp.url, oauth, riskLevel: 'low' },
  ]);
  expect(problems).toEqual([]);
  const gateway = createToolGateway({ env, credentials: { key: KEY } });
  toolset = createMcpToolset(configs[0]!, { gateway });
  return { gateway, toolset };
}

/** Signs `who` in through the sign-in tool: the pause, the browser, the host's provideCredential. */
async function signIn(gateway: ReturnType<typeof createToolGateway>, set: McpToolset, who: Person) {
  const [signInTool] = await as(who, () => set.tools());
  expect(signInTool?.name).toBe('files_sign_in');
  const request = requestOf(await as(who, () => gateway.invoke(signInTool!, {})));
  const callbackUrl = await auth.signIn(request.authorization_url!, { user: who.userId });
  await gateway.provideCredential(request.id, { callbackUrl }, { principal: who });
  return { signInTool: signInTool!, request };
}

describe('MCP authorization (OAuth 2.1 with PKCE, discovery, registration)', () => {
  it('signs the user in through the pause; calls then run as that user, refreshed and asked again', {
    timeout: 30_000,
  }, async () => {
    const { gateway, toolset: set } = await setUp();
    const { signInTool, request } = await signIn(gateway, set, alice);
    // Discovery and registration: a client of our own, PKCE, and the server as the resource.
    expect(auth.registered.size).toBe(2);
    const url = new URL(request.authorization_url!);
    expect(url.origin).toBe(auth.issuer);
    expect(url.searchParams.get('resource')).toBe(mcp.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('files:read');
    expect(JSON.stringify(request)).not.toMatch(/code_verifier|verifier/);

    // The call runs again once: it lists what the server offers.
    const signedIn = (await as(alice, () => gateway.invoke(signInTool, {}))) as unknown as {
      signed_in: boolean;
      tools: string[];
    };
    expect(signedIn).toMatchObject({ signed_in: true, tools: ['whoami', 'leak'] });
    const tools = await as(alice, () => set.tools());
    expect(tools.map((tool) => tool.name)).toEqual(['whoami', 'leak']);
    const whoami = named(tools, 'whoami');
    expect(await as(alice, () => gateway.invoke(whoami, {}))).toMatchObject({ text: 'user=alice' });
    // A second call uses the stored token: no new grant.
    expect(await as(alice, () => gateway.invoke(whoami, {}))).toMatchObject({ text: 'user=alice' });
    expect(auth.grants).toEqual(['authorization_code']);

    // The server expires the token early: the 401 is answered by a refresh, and the call runs.
    auth.expireAccessTokens();
    expect(await as(alice, () => gateway.invoke(whoami, {}))).toMatchObject({ text: 'user=alice' });
    expect(auth.grants).toEqual(['authorization_code', 'refresh_token']);

    // Revoked (refresh token too): the user is asked to sign in again; nothing ran.
    auth.revokeAll();
    const again = requestOf(await as(alice, () => gateway.invoke(whoami, {})));
    expect(again.credential_id).toBe('mcp.files');
    expect(await gateway.listCredentials({ principal: alice })).toEqual([]);
  });

  it("never uses one account's token for another; a token echoed in an error never reaches the model", {
    timeout: 30_000,
  }, async () => {
    const { gateway, toolset: set } = await setUp();
    const { signInTool } = await signIn(gateway, set, alice);
    await as(alice, () => gateway.invoke(signInTool, {}));
    const tools = await as(alice, () => set.tools());
    const [aliceCredential] = await gateway.listCredentials({ principal: alice });
    expect(aliceCredential).toMatchObject({ credentialId: 'mcp.files', userId: 'alice' });

    // Bob is offered the sign-in tool; the tools listed for Alice ask Bob to sign in himself.
    expect((await as(bob, () => set.tools())).map((tool) => tool.name)).toEqual(['files_sign_in']);
    const seen = mcp.requests.length;
    requestOf(await as(bob, () => gateway.invoke(named(tools, 'whoami'), {})));
    expect(mcp.requests.length).toBe(seen); // nothing was sent on Bob's behalf

    await signIn(gateway, set, bob);
    expect(await as(bob, () => gateway.invoke(named(tools, 'whoami'), {}))).toMatchObject({
      text: 'user=bob',
    });
    expect(await as(alice, () => gateway.invoke(named(tools, 'whoami'), {}))).toMatchObject({
      text: 'user=alice',
    });
    // Each user's requests carried that user's token only.
    const bearers = mcp.requests.map((request) => request.headers.authorization ?? '');
    const tokens = new Set(bearers.filter(Boolean));
    expect(tokens.size).toBe(2);

    const leaked = JSON.stringify(await as(alice, () => gateway.invoke(named(tools, 'leak'), {})));
    for (const bearer of tokens) expect(leaked).not.toContain(bearer.replace('Bearer ', ''));
    expect(leaked).toContain('bad token');
  });

  it('another process (its own registered client) uses the stored token and refreshes it with the client it was issued to', {
    timeout: 30_000,
  }, async () => {
    const { gateway, toolset: first } = await setUp();
    const { signInTool } = await signIn(gateway, first, alice);
    await as(alice, () => gateway.invoke(signInTool, {}));
    const { configs } = parseMcpServerConfigs([
      { name: 'files', url: mcp.url, oauth: { redirectUri: REDIRECT }, riskLevel: 'low' },
    ]);
    const second = createMcpToolset(configs[0]!, { gateway });
    try {
      const tools = await as(alice, () => second.tools());
      expect(auth.registered.size).toBe(3); // a client per process
      auth.expireAccessTokens();
      expect(await as(alice, () => gateway.invoke(named(tools, 'whoami'), {}))).toMatchObject({
        text: 'user=alice',
      });
      expect(auth.grants).toEqual(['authorization_code', 'refresh_token']);
    } finally {
      await second.close();
    }
  });

  it('a forged callback (wrong state, or another account) stores nothing and runs nothing', {
    timeout: 30_000,
  }, async () => {
    const { gateway, toolset: set } = await setUp();
    const [signInTool] = await as(alice, () => set.tools());
    const request = requestOf(await as(alice, () => gateway.invoke(signInTool!, {})));
    const callbackUrl = await auth.signIn(request.authorization_url!);
    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', 'not-the-state');
    await expect(
      gateway.provideCredential(
        request.id,
        { callbackUrl: forged.toString() },
        { principal: alice },
      ),
    ).rejects.toMatchObject({ code: 'credential_refused' });
    await expect(
      gateway.provideCredential(request.id, { callbackUrl }, { principal: bob }),
    ).rejects.toMatchObject({ code: 'credential_not_found' });
    expect(await gateway.listCredentials({ principal: alice })).toEqual([]);
    expect(await gateway.listCredentials({ principal: bob })).toEqual([]);
    expect(auth.grants).toEqual([]);
    // The genuine callback still completes it.
    await gateway.provideCredential(request.id, { callbackUrl }, { principal: alice });
    expect(await as(alice, () => gateway.invoke(signInTool!, {}))).toMatchObject({
      signed_in: true,
    });

    // A wrong PKCE verifier: Bob's callback carries the code of another of his sign-ins.
    const first = requestOf(await as(bob, () => gateway.invoke(signInTool!, {})));
    const second = requestOf(await as(bob, () => gateway.invoke(signInTool!, {})));
    expect(first.id).not.toBe(second.id);
    const secondCode = new URL(await auth.signIn(second.authorization_url!)).searchParams.get(
      'code',
    );
    const swapped = new URL(await auth.signIn(first.authorization_url!));
    swapped.searchParams.set('code', secondCode!);
    await expect(
      gateway.provideCredential(first.id, { callbackUrl: swapped.toString() }, { principal: bob }),
    ).rejects.toMatchObject({ code: 'credential_refused' });
    expect(await gateway.listCredentials({ principal: bob })).toEqual([]);
  });

  it('a configured client is used as is: no registration', { timeout: 30_000 }, async () => {
    const { gateway, toolset: set } = await setUp({
      redirect_uri: REDIRECT,
      client_id: 'ksadk-test-client',
      scopes: ['files:read', 'files:write'],
    });
    const { request } = await signIn(gateway, set, alice);
    expect(auth.registered.size).toBe(1);
    const url = new URL(request.authorization_url!);
    expect(url.searchParams.get('client_id')).toBe('ksadk-test-client');
    expect(url.searchParams.get('scope')).toBe('files:read files:write');
  });

  it('refuses oauth beside an API key or an Authorization header, and a bad oauth entry', () => {
    const { problems } = parseMcpServerConfigs([
      { name: 'a', url: 'http://127.0.0.1:1/mcp', apiKey: 'k', oauth: { redirectUri: REDIRECT } },
      {
        name: 'b',
        url: 'http://127.0.0.1:1/mcp',
        headers: { authorization: 'Bearer x' },
        oauth: { redirectUri: REDIRECT },
      },
      { name: 'c', url: 'http://127.0.0.1:1/mcp', oauth: { redirectUri: 'not a url' } },
      { name: 'd', url: 'http://127.0.0.1:1/mcp', oauth: { redirectUri: REDIRECT, __proto__x: 1 } },
      {
        name: 'e',
        url: 'http://127.0.0.1:1/mcp',
        oauth: { redirectUri: REDIRECT, scopes: ['a b'] },
      },
    ]);
    expect(problems.map((problem) => problem.field)).toEqual([
      'oauth',
      'oauth',
      'oauth',
      'oauth',
      'oauth',
    ]);
  });

  it('a server without metadata or PKCE is reported at load, not at a call', {
    timeout: 30_000,
  }, async () => {
    mcp = await startMcpTestServer({ tools: [] });
    const { configs } = parseMcpServerConfigs([
      { name: 'bare', url: mcp.url, oauth: { redirectUri: REDIRECT } },
    ]);
    toolset = createMcpToolset(configs[0]!, { gateway: createToolGateway({ env }) });
    await expect(toolset.prefetch()).rejects.toMatchObject({ code: 'service_unavailable' });
    auth = await startOAuthTestServer();
  });

  it('two OAuth servers never share a credential id (their tokens would cross)', {
    timeout: 30_000,
  }, async () => {
    ({ auth, mcp } = await startProtectedMcpTestServers({ redirectUri: REDIRECT }));
    const loaded = await loadMcpToolsets(
      [
        { name: 'files a', url: mcp.url, oauth: { redirectUri: REDIRECT } },
        {
          name: 'files-a',
          url: `${mcp.url.replace('/mcp', '/other/mcp')}`,
          oauth: { redirectUri: REDIRECT },
        },
      ],
      { gateway: createToolGateway({ env, credentials: { key: KEY } }) },
    );
    try {
      expect(loaded.toolsets.map((set) => set.name)).toEqual(['files a']);
      expect(loaded.problems.join('\n')).toMatch(
        /files-a: OAuth credential id mcp\.files-a is already another server's/,
      );
    } finally {
      await loaded.close();
    }
  });

  it("a JSON-RPC error with code 401 is the server's answer, not a refused token: never sent again", {
    timeout: 30_000,
  }, async () => {
    let runs = 0;
    mcp = await startMcpTestServer({
      tools: [
        {
          name: 'charge',
          inputSchema: { type: 'object' },
          handler: () => {
            runs += 1;
            throw Object.assign(new Error('upstream said 401'), { code: 401 });
          },
        },
      ],
    });
    const { configs } = parseMcpServerConfigs([{ name: 'pay', url: mcp.url, riskLevel: 'low' }]);
    toolset = createMcpToolset(configs[0]!);
    const [charge] = await toolset.tools();
    const result = await as(alice, () => createToolGateway({ env }).invoke(charge!, {}));
    expect(result).toMatchObject({ ok: false, error_type: 'mcp_error' });
    expect(runs).toBe(1);
    auth = await startOAuthTestServer();
  });
});
