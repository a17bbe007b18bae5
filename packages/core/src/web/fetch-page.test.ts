import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchPage } from './fetch-page.js';
import type { ResolvedAddress, WebResolver } from './resolver.js';
import { createSsrfPolicy, STRICT_SSRF_POLICY } from './ssrf-policy.js';
import {
  type CountingServer,
  startCountingServer,
  within,
} from './tools/test-fixtures/web-test-kit.js';

const limits = { maxBytes: 1024 * 1024, timeoutMs: 5_000, maxRedirects: 5 };

/** A resolver that answers each call with the next of `answers` and counts its calls. */
function scriptedResolver(...answers: string[][]): WebResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

describe('fetchPage: resolve once, check, pin', () => {
  let server: CountingServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('connects to the checked address whatever the host name says', async () => {
    server = await startCountingServer((request, response) => {
      response.setHeader('content-type', 'text/plain');
      response.end(`host=${request.headers.host}`);
    });
    const resolver = scriptedResolver(['127.0.0.1']);
    const page = await within(
      10_000,
      fetchPage(
        `http://rebind.test:${server.port}/x`,
        { resolver, policy: createSsrfPolicy({ allowedHosts: ['rebind.test'] }) },
        limits,
      ),
    );
    expect(page.ok).toBe(true);
    if (!page.ok) return;
    expect(page.body.toString()).toBe(`host=rebind.test:${server.port}`);
    expect(resolver.calls).toEqual(['rebind.test']);
  });

  it('a DNS answer that changes after the check cannot redirect the connection (rebinding)', async () => {
    server = await startCountingServer((_request, response) => response.end('private!'));
    // First answer public, every later one loopback: a second lookup at connect time would reach the server.
    const resolver = scriptedResolver(['93.184.216.34'], ['127.0.0.1']);
    const pinned: string[][] = [];
    const origin = `http://rebind.test:${server.port}`;
    const page = await within(
      10_000,
      fetchPage(
        `${origin}/`,
        {
          resolver,
          policy: STRICT_SSRF_POLICY,
          // Stands in for the public host (no traffic leaves 127.0.0.1): records what the connection is pinned to.
          dispatcherFor: (addresses) => {
            pinned.push(addresses.map((entry) => entry.address));
            const mock = new MockAgent();
            mock.disableNetConnect();
            mock
              .get(origin)
              .intercept({ path: '/' })
              .reply(200, 'public', {
                headers: { 'content-type': 'text/plain' },
              });
            return mock;
          },
        },
        limits,
      ),
    );
    expect(page).toMatchObject({ ok: true, status: 200 });
    expect(page.ok && page.body.toString()).toBe('public');
    expect(resolver.calls).toEqual(['rebind.test']);
    expect(pinned).toEqual([['93.184.216.34']]);
    expect(server.requests).toHaveLength(0);
  });

  it('re-resolves and re-checks every redirect hop', async () => {
    server = await startCountingServer((request, response) => {
      if (request.url === '/start') {
        response.writeHead(302, { location: `http://evil.test:${server!.port}/next` });
        response.end();
        return;
      }
      response.end('should not be reached');
    });
    const resolver = scriptedResolver(['127.0.0.1'], ['127.0.0.1']);
    const page = await within(
      10_000,
      fetchPage(
        `http://good.test:${server.port}/start`,
        { resolver, policy: createSsrfPolicy({ allowedHosts: ['good.test'] }) },
        limits,
      ),
    );
    expect(page).toMatchObject({
      ok: false,
      error_type: 'blocked_by_ssrf_policy',
      final_url: `http://evil.test:${server.port}/next`,
    });
    expect(resolver.calls).toEqual(['good.test', 'evil.test']);
    expect(server.requests.map((request) => request.url)).toEqual(['/start']);
  });

  it('a custom resolver answering a metadata address in another spelling is refused under an allow-all policy', async () => {
    const wide = createSsrfPolicy({ allowedHosts: ['*'], allowedCidrs: ['fd00::/8'] });
    for (const spelling of ['FD00:EC2::254', 'fd00:ec2:0::254', 'fd00:ec2::254%lo']) {
      const connections: string[][] = [];
      const page = await within(
        10_000,
        fetchPage(
          'http://api.internal.test/latest/meta-data/',
          {
            resolver: scriptedResolver([spelling]),
            policy: wide,
            dispatcherFor: (addresses) => {
              connections.push(addresses.map((entry) => entry.address));
              const mock = new MockAgent();
              mock.disableNetConnect();
              return mock;
            },
          },
          limits,
        ),
      );
      expect(page, spelling).toMatchObject({ ok: false, error_type: 'blocked_by_ssrf_policy' });
      expect(connections, spelling).toEqual([]);
    }
  });

  it('reports a resolver failure or an empty answer as dns_resolution_failed', async () => {
    const failing: WebResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    expect(
      await fetchPage(
        'http://nowhere.test/',
        { resolver: failing, policy: STRICT_SSRF_POLICY },
        limits,
      ),
    ).toMatchObject({ ok: false, error_type: 'dns_resolution_failed' });
    expect(
      await fetchPage(
        'http://empty.test/',
        { resolver: async () => [], policy: STRICT_SSRF_POLICY },
        limits,
      ),
    ).toMatchObject({ ok: false, error_type: 'dns_resolution_failed' });
    expect(
      await fetchPage(
        'http://weird.test/',
        { resolver: async () => [{ address: 'localhost', family: 4 }], policy: STRICT_SSRF_POLICY },
        limits,
      ),
    ).toMatchObject({ ok: false, error_type: 'blocked_by_ssrf_policy' });
  });

  it('a resolver that never answers ends at the time cap', async () => {
    const started = Date.now();
    const page = await within(
      5_000,
      fetchPage(
        'http://hang.test/',
        { resolver: () => new Promise(() => undefined), policy: STRICT_SSRF_POLICY },
        { ...limits, timeoutMs: 300 },
      ),
    );
    expect(page).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
