import { afterEach, describe, expect, it } from 'vitest';
import { createKsadkConsole, serveKsadkConsole } from './index.js';
import {
  alice,
  getAs,
  headerConsole,
  pageToken,
  pendingAs,
  postAs,
  testGateway,
} from './test-fixtures/console-setup.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const { gateway, cleanup } = await testGateway();
  cleanups.push(cleanup);
  return gateway;
}

describe('signing in, one local user', () => {
  it('needs the token: in the URL once (then a cookie, the token gone from the address), or as a bearer', async () => {
    const gateway = await setup();
    const served = await serveKsadkConsole({ gateway });
    cleanups.push(() => served.close());
    const base = served.url.split('?')[0]!;
    // Under a path nobody guesses, so its cookie reaches nothing else on this host.
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{16}\/\?token=[\w-]{32}$/);
    const origin = new URL(served.url).origin;
    expect(
      (
        await fetch(`${origin}/api/approvals`, {
          headers: { authorization: `Bearer ${served.token}` },
        })
      ).status,
    ).toBe(404);
    expect((await fetch(base.slice(0, -1), { redirect: 'manual' })).status).toBe(308);
    expect((await fetch(base)).status).toBe(401);
    expect((await fetch(`${base}api/approvals`)).status).toBe(401);
    expect((await fetch(`${base}?token=${'x'.repeat(32)}`, { redirect: 'manual' })).status).toBe(
      401,
    );
    const opened = await fetch(served.url, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('./');
    const cookie = opened.headers.get('set-cookie') ?? '';
    expect(cookie).toBe(
      `ksadk_console=${served.token}; Path=${new URL(base).pathname}; HttpOnly; SameSite=Strict`,
    );
    const page = await fetch(base, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    const html = await page.text();
    // No inline script anywhere: one module script by address, under a strict policy.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toMatch(/<script type="module" src="app\/console\.js"><\/script>/);
    expect(page.headers.get('content-security-policy')).toMatch(
      /script-src 'self'; style-src 'self'/,
    );
    expect(page.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const bearer = await fetch(`${base}api/approvals`, {
      headers: { authorization: `Bearer ${served.token}` },
    });
    expect(bearer.status).toBe(200);
    // The app's files need no sign-in and carry the same headers.
    const script = await fetch(`${base}app/console.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    for (const path of ['app/../package.json', 'app/%2e%2e/package.json', 'app/index.ts', 'app/']) {
      const response = await fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${served.token}` },
      });
      expect(response.status, path).toBe(404);
    }
  });

  it('answers loopback host names only (a DNS-rebinding page cannot reach it), and listens on loopback only', async () => {
    const gateway = await setup();
    const local = createKsadkConsole({ gateway, token: 't'.repeat(24) });
    cleanups.push(() => local.close());
    for (const host of ['evil.example', 'attacker.com:80', '10.0.0.1']) {
      const response = await local.fetch(
        new Request(`http://${host}/api/approvals`, {
          headers: { authorization: `Bearer ${'t'.repeat(24)}` },
        }),
      );
      expect(response.status, host).toBe(421);
    }
    const ok = await local.fetch(
      new Request('http://localhost:9/api/approvals', {
        headers: { authorization: `Bearer ${'t'.repeat(24)}` },
      }),
    );
    expect(ok.status).toBe(200);
    await expect(serveKsadkConsole({ gateway, host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'invalid_config',
    });
    expect(() => createKsadkConsole({ gateway, token: 'short' })).toThrowError(/at least 16/);
    expect(() =>
      createKsadkConsole({ gateway, principal: { admin: 'yes' } as never }),
    ).toThrowError(/principal must be/);
    expect(() => createKsadkConsole({ gateway, pollMs: 0 })).toThrowError(/pollMs/);
    expect(() => createKsadkConsole({ gateway, nope: 1 } as never)).toThrowError(/nope/);
  });
});

describe('signing in through the host', () => {
  it('resolvePrincipal decides: nobody is 401, a throw is 401, a malformed principal is refused', async () => {
    const gateway = await setup();
    const console = headerConsole(gateway);
    cleanups.push(() => console.close());
    expect((await getAs(console, '', 'approvals')).status).toBe(401);
    expect((await getAs(console, 'acme:alice', 'approvals')).status).toBe(200);
    for (const bad of [
      { accountId: 7 },
      { admin: true, accountId: 'x' },
      'alice',
      { userId: 'a' },
    ]) {
      const odd = createKsadkConsole({ gateway, resolvePrincipal: () => bad as never });
      const response = await odd.fetch(new Request('http://127.0.0.1/api/approvals'));
      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_principal' } });
      await odd.close();
    }
    const throwing = createKsadkConsole({
      gateway,
      resolvePrincipal: () => {
        throw new Error('session store down: secret-session-42');
      },
    });
    const refused = await throwing.fetch(new Request('http://127.0.0.1/api/approvals'));
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain('secret-session-42');
    await throwing.close();
  });

  it('a change needs the page token of the same principal and the same origin; GET changes nothing', async () => {
    const gateway = await setup();
    const console = headerConsole(gateway);
    cleanups.push(() => console.close());
    const id = await pendingAs(gateway, alice);
    const approve = `approvals/${id}/approve`;
    const mine = await pageToken(console, 'acme:alice');
    const other = await pageToken(console, 'acme:bob');
    expect(mine).not.toBe(other);
    const refused: Record<string, string>[] = [
      { 'x-ksadk-csrf': '' },
      { 'x-ksadk-csrf': other },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
    ];
    for (const headers of refused) {
      const response = await postAs(console, 'acme:alice', approve, {}, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'cross_site' } });
    }
    expect((await getAs(console, 'acme:alice', approve)).status).toBe(404);
    expect((await gateway.approvalStatus(id, { principal: { admin: true } }))?.status).toBe(
      'pending',
    );
    const ok = await postAs(console, 'acme:alice', approve);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { item: unknown }).item).toMatchObject({
      id,
      status: 'approved',
      decided_by: 'user:alice',
    });
  });
});
