import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { watchLoop } from '../../util/test-fixtures/watch-loop.js';
import type { ResolvedAddress } from '../resolver.js';
import { createWebToolset, webToolsetFromEnv } from './index.js';
import {
  type CountingServer,
  createTestGateway,
  startCountingServer,
  within,
} from './test-fixtures/web-test-kit.js';

/** A resolver that maps names to 127.0.0.1 (or per-name answers) and records every call. */
function spyResolver(answers: Record<string, string> = {}) {
  const calls: string[] = [];
  const resolver = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const address = answers[host] ?? '127.0.0.1';
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return { resolver, calls };
}

const ARTICLE = `<!doctype html><html><head><title>Local Article</title><script>window.SECRET_SCRIPT = 1</script></head>
<body><nav><a href="/">Home</a></nav><article><h1>Local Article</h1>
<p>${'This is the article body, long enough for Readability to pick it as the main content. '.repeat(10)}</p>
<p>Second paragraph with <a href="/more">a link</a>.</p><script>document.write('INLINE_SCRIPT')</script></article>
<style>body{background:red}</style></body></html>`;

/**
 * A 1 MB page that is slow to convert: Readability's cost grows with text times nesting depth.
 * Converted on the main thread (before the worker), it held the event loop for 10.6 s.
 */
const HOSTILE = `<!doctype html><html><head><title>Hostile</title><script>var SECRET = 1;</script></head><body>${'<div>'.repeat(100)}${`<p>${'hostile filler words '.repeat(50)}</p>\n`.repeat(900)}<p>Visible end</p></body></html>`;

describe('web_fetch: SSRF corpus (refused, no connection made)', () => {
  let target: CountingServer;
  beforeAll(async () => {
    target = await startCountingServer((_request, response) => response.end('private data'));
  });
  afterAll(() => target.close());

  const corpus = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://2130706433:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[64:ff9b::7f00:1]:${port}/`,
    `http://169.254.169.254:${port}/latest/meta-data/`,
    `http://metadata.google.internal:${port}/computeMetadata/v1/`,
    `http://100.64.0.1:${port}/`,
    `http://10.0.0.1:${port}/`,
    `http://192.168.0.1:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://localhost:${port}/`,
  ];

  it('refuses every form of a non-global address before any request', async () => {
    const { resolver, calls } = spyResolver({ 'metadata.google.internal': '169.254.169.254' });
    const web = createWebToolset({ resolver });
    const { gateway, cleanup } = await createTestGateway();
    try {
      for (const url of corpus(target.port)) {
        const result = await within(10_000, gateway.invoke(web.webFetch, { url }));
        expect(result, url).toMatchObject({ ok: false, error_type: 'blocked_by_ssrf_policy', url });
      }
      // Literal addresses are checked without DNS; the metadata name is refused by name.
      expect(calls).toEqual(['localhost']);
      expect(target.requests).toHaveLength(0);
      expect(target.connections()).toBe(0);
    } finally {
      await web.close();
      await cleanup();
    }
  });

  it('blocks a redirect to each of them after exactly one request to the allowed server', async () => {
    let next = '';
    const allowed = await startCountingServer((_request, response) => {
      response.writeHead(302, { location: next });
      response.end();
    });
    const { resolver } = spyResolver({ 'metadata.google.internal': '169.254.169.254' });
    const web = createWebToolset({ resolver, ssrfPolicy: { allowedHosts: ['allowed.test'] } });
    const { gateway, cleanup } = await createTestGateway();
    try {
      for (const url of corpus(target.port)) {
        next = url;
        const before = allowed.requests.length;
        const result = await within(
          10_000,
          gateway.invoke(web.webFetch, { url: `http://allowed.test:${allowed.port}/go` }),
        );
        expect(result, url).toMatchObject({ ok: false, error_type: 'blocked_by_ssrf_policy' });
        expect(allowed.requests.length - before, url).toBe(1);
      }
      expect(target.requests).toHaveLength(0);
    } finally {
      await allowed.close();
      await web.close();
      await cleanup();
    }
  });

  it('a host name resolving to loopback is refused after exactly one lookup', async () => {
    const { resolver, calls } = spyResolver();
    const web = createWebToolset({ resolver });
    const { gateway, cleanup } = await createTestGateway();
    try {
      const result = await within(
        10_000,
        gateway.invoke(web.webFetch, { url: `http://rebind.test:${target.port}/` }),
      );
      expect(result).toMatchObject({
        ok: false,
        error_type: 'blocked_by_ssrf_policy',
        // What the name resolves to is not told: a model could map the host's internal DNS.
        error_message: 'blocked: rebind.test resolves to a non-public address',
      });
      expect(calls).toEqual(['rebind.test']);
      expect(target.connections()).toBe(0);
    } finally {
      await web.close();
      await cleanup();
    }
  });
});

describe('web_fetch against an allowlisted local server', () => {
  let server: CountingServer;
  let env: Awaited<ReturnType<typeof createTestGateway>>;
  const web = createWebToolset({
    ssrfPolicy: { allowedHosts: ['127.0.0.1'] },
    fetchLimits: { maxBytes: 1024 * 1024, maxTimeoutSeconds: 5 },
  });
  beforeAll(async () => {
    env = await createTestGateway();
    server = await startCountingServer((request, response) => {
      switch (request.url) {
        case '/article':
          response.setHeader('content-type', 'text/html; charset=utf-8');
          response.end(ARTICLE);
          return;
        case '/json':
          response.setHeader('content-type', 'application/json');
          response.end('{"a":1}');
          return;
        case '/binary':
          response.setHeader('content-type', 'image/png');
          response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
          return;
        case '/untyped-binary':
          response.removeHeader('content-type');
          response.end(Buffer.from([1, 2, 0, 3]));
          return;
        case '/hostile':
          response.setHeader('content-type', 'text/html; charset=utf-8');
          response.end(HOSTILE);
          return;
        case '/slow':
          return; // never answers
        case '/huge': {
          // 50 MB of text, written as fast as the client reads.
          response.setHeader('content-type', 'text/plain');
          const chunk = Buffer.alloc(64 * 1024, 'a');
          let sent = 0;
          const pump = () => {
            while (sent < 50 * 1024 * 1024) {
              sent += chunk.length;
              if (!response.write(chunk)) {
                response.once('drain', pump);
                return;
              }
            }
            response.end();
          };
          response.on('close', () => {
            sent = Number.POSITIVE_INFINITY;
          });
          pump();
          return;
        }
        case '/redirect-loop':
          response.writeHead(302, { location: '/redirect-loop' });
          response.end();
          return;
        default:
          response.statusCode = 404;
          response.setHeader('content-type', 'text/plain');
          response.end('missing');
      }
    });
  });
  afterAll(async () => {
    await server.close();
    await web.close();
    await env.cleanup();
  });
  afterEach(() => {
    server.requests.length = 0;
  });

  it('has both tools in group web, approval-exempt', () => {
    expect(web.tools.map((tool) => [tool.name, tool.group])).toEqual([
      ['web_fetch', 'web'],
      ['web_search', 'web'],
    ]);
    expect(web.webFetch.policy).toMatchObject({ riskLevel: 'low', approvalExempt: true });
  });

  it('turns HTML into main-content markdown with scripts gone', async () => {
    const result = await within(
      10_000,
      env.gateway.invoke(web.webFetch, { url: `${server.origin}/article` }),
    );
    // Named first, so a fallback shows why it happened.
    expect(result['fallback_reason']).toBeUndefined();
    expect(result).toMatchObject({
      ok: true,
      status_code: 200,
      format: 'markdown',
      extraction: 'readability',
      title: 'Local Article',
      truncated: false,
      final_url: `${server.origin}/article`,
    });
    expect(result['text']).toContain('This is the article body');
    expect(result['text']).toContain(`[a link](${server.origin}/more)`);
    expect(result['text']).not.toMatch(/SECRET_SCRIPT|INLINE_SCRIPT|background:red/);
  });

  it('ignores HTTP_PROXY and HTTPS_PROXY (no proxy can redirect or observe a fetch)', async () => {
    const proxy = await startCountingServer((_request, response) => {
      response.setHeader('content-type', 'text/plain');
      response.end('from the proxy');
    });
    const saved = { http: process.env['HTTP_PROXY'], https: process.env['HTTPS_PROXY'] };
    process.env['HTTP_PROXY'] = proxy.origin;
    process.env['HTTPS_PROXY'] = proxy.origin;
    process.env['http_proxy'] = proxy.origin;
    try {
      const result = await within(
        10_000,
        env.gateway.invoke(web.webFetch, { url: `${server.origin}/json` }),
      );
      expect(result).toMatchObject({ ok: true, text: '{"a":1}' });
      expect(proxy.connections()).toBe(0);
    } finally {
      if (saved.http === undefined) delete process.env['HTTP_PROXY'];
      else process.env['HTTP_PROXY'] = saved.http;
      if (saved.https === undefined) delete process.env['HTTPS_PROXY'];
      else process.env['HTTPS_PROXY'] = saved.https;
      delete process.env['http_proxy'];
      await proxy.close();
    }
  });

  it('a page too slow to convert comes back as stripped text, the event loop never stalled', {
    timeout: 20_000,
  }, async () => {
    const {
      value: result,
      maxGapMs,
      elapsedMs,
    } = await watchLoop(() =>
      within(
        15_000,
        env.gateway.invoke(web.webFetch, { url: `${server.origin}/hostile`, timeout: 1 }),
      ),
    );
    // The conversion gets what is left of `timeout`, at least 2 s; then the stripped text.
    expect(elapsedMs).toBeLessThan(5_000);
    expect(maxGapMs).toBeLessThan(250);
    expect(result).toMatchObject({
      ok: true,
      format: 'markdown',
      extraction: 'stripped_text',
      fallback_reason: 'deadline',
      title: 'Hostile',
      truncated: true,
    });
    expect(result['text']).toMatch(/^hostile filler words/);
    expect(result['text']).not.toContain('SECRET');
  });

  it('max_chars=25 truncates and persists the full text as text/plain, per call', async () => {
    const first = await env.gateway.invoke(
      web.webFetch,
      { url: `${server.origin}/article`, max_chars: 25 },
      { callId: 'call_a' },
    );
    const second = await env.gateway.invoke(
      web.webFetch,
      { url: `${server.origin}/article`, max_chars: 25 },
      { callId: 'call_b' },
    );
    expect(first).toMatchObject({ ok: true, truncated: true, preview_chars: 25 });
    expect((first['text'] as string).length).toBe(25);
    const persisted = first['persisted'] as { path: string; mime_type: string };
    expect(persisted.mime_type).toBe('text/plain');
    expect(persisted.path).toBe('tool-results://call_a.text.txt');
    expect((second['persisted'] as { path: string }).path).toBe('tool-results://call_b.text.txt');
    expect(first['original_chars']).toBeGreaterThan(500);
  });

  it('returns JSON as it is and 4xx with ok:true', async () => {
    expect(await env.gateway.invoke(web.webFetch, { url: `${server.origin}/json` })).toMatchObject({
      ok: true,
      format: 'json',
      text: '{"a":1}',
    });
    expect(await env.gateway.invoke(web.webFetch, { url: `${server.origin}/nope` })).toMatchObject({
      ok: true,
      status_code: 404,
      text: 'missing',
    });
  });

  it('refuses binary content types', async () => {
    expect(
      await env.gateway.invoke(web.webFetch, { url: `${server.origin}/binary` }),
    ).toMatchObject({
      ok: false,
      error_type: 'unsupported_content_type',
      content_type: 'image/png',
    });
    expect(
      await env.gateway.invoke(web.webFetch, { url: `${server.origin}/untyped-binary` }),
    ).toMatchObject({ ok: false, error_type: 'unsupported_content_type' });
  });

  it('cuts a 50 MB body at the byte cap, fast', async () => {
    const started = Date.now();
    const result = await within(
      15_000,
      env.gateway.invoke(web.webFetch, { url: `${server.origin}/huge`, max_chars: 1000 }),
    );
    expect(result).toMatchObject({
      ok: true,
      truncated: true,
      body_truncated: true,
      body_bytes: 1024 * 1024,
      original_chars: 1024 * 1024,
    });
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('ends a slow server at the time cap', async () => {
    const started = Date.now();
    const result = await within(
      10_000,
      env.gateway.invoke(web.webFetch, { url: `${server.origin}/slow`, timeout: 1 }),
    );
    expect(result).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('caps the model timeout at the configured maximum', async () => {
    const short = createWebToolset({
      ssrfPolicy: { allowedHosts: ['127.0.0.1'] },
      fetchLimits: { maxTimeoutSeconds: 1 },
    });
    const started = Date.now();
    const result = await within(
      10_000,
      env.gateway.invoke(short.webFetch, { url: `${server.origin}/slow`, timeout: 3600 }),
    );
    expect(result).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('stops redirect loops', async () => {
    const result = await within(
      10_000,
      env.gateway.invoke(web.webFetch, { url: `${server.origin}/redirect-loop` }),
    );
    expect(result).toMatchObject({ ok: false, error_type: 'too_many_redirects' });
    expect(server.requests).toHaveLength(6);
  });

  it('answers odd arguments with invalid_arguments or a clear error, never a crash', async () => {
    const cases: unknown[] = [
      JSON.parse('{"__proto__": {"url": "http://127.0.0.1/"}}'),
      { url: 'x'.repeat(100_000) },
      { url: 42 },
      { url: `${server.origin}/json`, max_chars: -1 },
      { url: `${server.origin}/json`, max_chars: 1e300 },
      { url: `${server.origin}/json`, timeout: 'soon' },
      null,
      [],
    ];
    for (const args of cases) {
      const result = await env.gateway.invoke(web.webFetch, args);
      expect(result, JSON.stringify(args)?.slice(0, 80)).toMatchObject({
        ok: false,
        error_type: 'invalid_arguments',
      });
    }
    for (const [url, type] of [
      ['   ', 'url_required'],
      ['not a url', 'invalid_url'],
      ['ftp://example.com/', 'unsupported_scheme'],
      ['file:///etc/passwd', 'unsupported_scheme'],
      ['http://user:pw@example.com/', 'invalid_url'],
    ] as const) {
      expect(await env.gateway.invoke(web.webFetch, { url })).toMatchObject({
        ok: false,
        error_type: type,
      });
    }
    expect(server.requests).toHaveLength(0);
  });

  it('never asks for approval by default, even in ask mode; the policy is configurable', async () => {
    const ask = createToolGateway({ approvalMode: 'ask', env: {} });
    expect(await ask.invoke(web.webFetch, { url: `${server.origin}/json` })).toMatchObject({
      ok: true,
    });
    const gated = createWebToolset({
      ssrfPolicy: { allowedHosts: ['127.0.0.1'] },
      policies: { web_fetch: { riskLevel: 'medium', sideEffects: ['network_read'] } },
    });
    const risk = createToolGateway({ approvalMode: 'risk', env: {} });
    expect(await risk.invoke(gated.webFetch, { url: `${server.origin}/json` })).toMatchObject({
      ok: false,
      error_type: 'approval_required',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps the legacy allow_private switch working, with a warning', async () => {
    const legacy = webToolsetFromEnv({
      env: { KSADK_WEB_SSRF_POLICY_JSON: '{"allow_private": true}' },
    });
    expect(legacy.problems.join('\n')).toContain('deprecated');
    const result = await runWithInvocationContext({ sessionId: 's1' }, () =>
      env.gateway.invoke(legacy.webFetch, { url: `${server.origin}/json` }),
    );
    expect(result).toMatchObject({ ok: true, text: '{"a":1}' });
    expect((result['warnings'] as string[])[0]).toContain('allowed_hosts');
    const strict = webToolsetFromEnv({ env: { KSADK_WEB_SSRF_POLICY_JSON: '{oops' } });
    expect(strict.problems[0]).toContain('not valid JSON');
    expect(
      await env.gateway.invoke(strict.webFetch, { url: `${server.origin}/json` }),
    ).toMatchObject({ ok: false, error_type: 'blocked_by_ssrf_policy' });
  });

  it('persists into the caller session and the file holds the full text', async () => {
    const result = await runWithInvocationContext({ accountId: 'acme', sessionId: 's9' }, () =>
      env.gateway.invoke(
        web.webFetch,
        { url: `${server.origin}/article`, max_chars: 30 },
        { callId: 'call_full' },
      ),
    );
    expect(result['truncated']).toBe(true);
    const root = path.join(env.dir, 'ui', 'tool-results');
    const files = (await readdir(root, { recursive: true })).filter((name) =>
      name.endsWith('call_full.text.txt'),
    );
    expect(files).toHaveLength(1);
    const full = await readFile(path.join(root, files[0]!), 'utf8');
    expect(full.length).toBe(result['original_chars']);
    expect(full).toContain('Second paragraph');
  });
});
