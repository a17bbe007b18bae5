import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebToolset, type WebToolsetOptions, webToolsetFromEnv } from './index.js';
import {
  type CountingServer,
  createTestGateway,
  startCountingServer,
  within,
} from './test-fixtures/web-test-kit.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('web_search providers (a local server stands in for each provider)', () => {
  let server: CountingServer;
  const seen: Seen[] = [];
  let env: Awaited<ReturnType<typeof createTestGateway>>;
  const KEY = 'sk-test-provider-key-0123456789';
  beforeAll(async () => {
    env = await createTestGateway();
    server = await startCountingServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        seen.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body,
        });
        response.setHeader('content-type', 'application/json');
        const path = (request.url ?? '').split('?')[0];
        if (path === '/http')
          response.end(
            JSON.stringify({
              results: [
                { title: 'A', link: 'https://a.example/', summary: 'sa' },
                { title: 'B', url: 'https://b.example/', snippet: 'sb' },
                { title: 'C', url: 'https://c.example/', snippet: 'sc' },
              ],
            }),
          );
        else if (path === '/ksyun')
          response.end(
            JSON.stringify({
              webpages: [
                { title: 'K', link: 'https://k.example/', summary: 'ks', date: '2024-05-01' },
                {
                  title: 'L',
                  url: 'https://l.example/',
                  snippet: 'ls',
                  published_at: '2024-06-01',
                },
              ],
            }),
          );
        else if (path === '/tavily')
          response.end(
            JSON.stringify({
              query: 'q',
              results: [
                {
                  title: 'T',
                  url: 'https://t.example/',
                  content: 'tc',
                  score: 0.9,
                  published_date: '2024-07-01',
                },
              ],
            }),
          );
        else if (path === '/brave')
          response.end(
            JSON.stringify({
              web: {
                results: [
                  {
                    title: 'Br <strong>ave</strong>',
                    url: 'https://br.example/',
                    description: 'd &amp; <strong>e</strong>',
                    page_age: '2024-08-01T00:00:00',
                  },
                ],
              },
            }),
          );
        else if (path === '/echo-key')
          response.end(
            JSON.stringify({
              results: [
                {
                  title: `key ${request.headers['authorization']}`,
                  url: 'https://x/',
                  snippet: KEY,
                },
              ],
            }),
          );
        else if (path === '/error') {
          response.statusCode = 401;
          response.end(JSON.stringify({ error: `bad key ${KEY}` }));
        } else if (path === '/huge') response.end(`{"results":[${'"x",'.repeat(400_000)}"x"]}`);
        else if (path === '/not-json') response.end('<html>');
        else if (path === '/slow') return;
        else response.end('{}');
      });
    });
  });
  afterAll(async () => {
    await server.close();
    await env.cleanup();
  });

  const search = async (search: WebToolsetOptions['search'], args: Record<string, unknown>) => {
    const web = createWebToolset({ search });
    try {
      return await within(15_000, env.gateway.invoke(web.webSearch, args));
    } finally {
      await web.close();
    }
  };

  it('no provider, an unknown one, a missing base URL → provider_not_configured', async () => {
    expect(await search(undefined, { query: 'x' })).toMatchObject({
      ok: false,
      error_type: 'provider_not_configured',
      error_message: 'web search provider is not configured',
    });
    expect(await search({ provider: 'bing' }, { query: 'x' })).toMatchObject({
      error_type: 'provider_not_configured',
      error_message: 'unsupported web search provider: bing',
    });
    expect(await search({ provider: 'http' }, { query: 'x' })).toMatchObject({
      error_type: 'provider_not_configured',
    });
    expect(await search({ provider: 'fake' }, { query: '  ' })).toMatchObject({
      error_type: 'query_required',
    });
  });

  it('fake returns the exact fake item', async () => {
    expect(await search({ provider: 'fake' }, { query: 'hello world' })).toEqual({
      ok: true,
      query: 'hello world',
      provider: 'fake',
      results: [
        {
          title: 'Fake result for hello world',
          url: 'https://example.com/search?q=hello+world',
          snippet: 'Fake search result generated by ksadk test provider.',
          rank: 1,
          provider: 'fake',
        },
      ],
    });
  });

  it('http sends q, max_results, recency_days and a bearer header', async () => {
    seen.length = 0;
    const result = await search(
      { provider: 'http', endpoint: `${server.origin}/http`, apiKey: KEY },
      { query: 'cats', max_results: 2, recency_days: 7 },
    );
    expect(result).toEqual({
      ok: true,
      query: 'cats',
      provider: 'http',
      results: [
        { title: 'A', url: 'https://a.example/', snippet: 'sa', rank: 1, provider: 'http' },
        { title: 'B', url: 'https://b.example/', snippet: 'sb', rank: 2, provider: 'http' },
      ],
    });
    const request = seen[0]!;
    expect(request.method).toBe('GET');
    expect(Object.fromEntries(new URL(request.url, 'http://x').searchParams)).toEqual({
      q: 'cats',
      max_results: '2',
      recency_days: '7',
    });
    expect(request.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('ksyun POSTs {q, scope, size}, maps link to url, keeps date, honours the scope and the key chain', async () => {
    seen.length = 0;
    const ksyunEnv = {
      KSADK_WEB_SEARCH_PROVIDER: 'ksyun',
      KSADK_WEB_SEARCH_BASE_URL: `${server.origin}/ksyun`,
      KSADK_MCP_KEY: 'mcp-key-fallback-123456',
    };
    const web = webToolsetFromEnv({ env: ksyunEnv });
    const result = await env.gateway.invoke(web.webSearch, { query: 'news' });
    await web.close();
    expect(result).toMatchObject({
      ok: true,
      provider: 'ksyun',
      results: [
        {
          title: 'K',
          url: 'https://k.example/',
          snippet: 'ks',
          date: '2024-05-01',
          rank: 1,
          provider: 'ksyun',
        },
        { title: 'L', url: 'https://l.example/', snippet: 'ls', date: '2024-06-01', rank: 2 },
      ],
    });
    expect(seen[0]!.method).toBe('POST');
    expect(JSON.parse(seen[0]!.body)).toEqual({ q: 'news', scope: 'webpage', size: 5 });
    expect(seen[0]!.headers['authorization']).toBe('Bearer mcp-key-fallback-123456');
    const scoped = webToolsetFromEnv({ env: { ...ksyunEnv, KSADK_WEB_SEARCH_SCOPE: 'scholar' } });
    await env.gateway.invoke(scoped.webSearch, { query: 'papers', max_results: 3 });
    await scoped.close();
    expect(JSON.parse(seen[1]!.body)).toEqual({ q: 'papers', scope: 'scholar', size: 3 });
    const keyless = webToolsetFromEnv({
      env: {
        KSADK_WEB_SEARCH_PROVIDER: 'ksyun',
        KSADK_WEB_SEARCH_BASE_URL: `${server.origin}/ksyun`,
      },
    });
    const missing = await env.gateway.invoke(keyless.webSearch, { query: 'x' });
    expect(missing).toMatchObject({ ok: false, error_type: 'provider_not_configured' });
    expect(String(missing['error_message'])).toContain('api key');
    expect(seen).toHaveLength(2);
  });

  it('ksyun uses its default endpoint when no base URL is set', async () => {
    const web = webToolsetFromEnv({
      env: { KSADK_WEB_SEARCH_PROVIDER: 'ksyun', KSC_AIPRO_API_KEY: 'aipro-key-123456' },
    });
    const description = web.webSearch.description;
    await web.close();
    expect(description).toContain('ksyun');
  });

  it('tavily POSTs {query, max_results, time_range} with a bearer key', async () => {
    seen.length = 0;
    const result = await search(
      { provider: 'tavily', endpoint: `${server.origin}/tavily`, apiKey: KEY },
      { query: 'ai', max_results: 30, recency_days: 5 },
    );
    expect(result).toMatchObject({
      ok: true,
      provider: 'tavily',
      results: [
        {
          title: 'T',
          url: 'https://t.example/',
          snippet: 'tc',
          rank: 1,
          provider: 'tavily',
          date: '2024-07-01',
        },
      ],
    });
    expect(seen[0]!.method).toBe('POST');
    expect(JSON.parse(seen[0]!.body)).toEqual({
      query: 'ai',
      max_results: 20,
      search_depth: 'basic',
      topic: 'general',
      time_range: 'week',
    });
    expect(seen[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('brave GETs q, count, freshness with X-Subscription-Token and strips markup', async () => {
    seen.length = 0;
    const result = await search(
      { provider: 'brave', endpoint: `${server.origin}/brave`, apiKey: KEY },
      { query: 'rust', max_results: 3, recency_days: 2 },
    );
    expect(result).toMatchObject({
      ok: true,
      provider: 'brave',
      results: [
        {
          title: 'Br ave',
          url: 'https://br.example/',
          snippet: 'd & e',
          rank: 1,
          provider: 'brave',
          date: '2024-08-01T00:00:00',
        },
      ],
    });
    const params = new URL(seen[0]!.url, 'http://x').searchParams;
    expect(params.get('q')).toBe('rust');
    expect(params.get('count')).toBe('3');
    expect(params.get('freshness')).toMatch(/^\d{4}-\d\d-\d\dto\d{4}-\d\d-\d\d$/);
    expect(seen[0]!.headers['x-subscription-token']).toBe(KEY);
    expect(seen[0]!.headers['authorization']).toBeUndefined();
  });

  it('tavily and brave without a key report provider_not_configured', async () => {
    for (const provider of ['tavily', 'brave']) {
      expect(
        await search({ provider, endpoint: `${server.origin}/${provider}` }, { query: 'x' }),
      ).toMatchObject({
        ok: false,
        error_type: 'provider_not_configured',
      });
    }
  });

  it('never shows the provider key, even when the provider echoes it', async () => {
    const echoed = await search(
      { provider: 'http', endpoint: `${server.origin}/echo-key`, apiKey: KEY },
      { query: 'x' },
    );
    expect(echoed['ok']).toBe(true);
    expect(JSON.stringify(echoed)).not.toContain(KEY);
    expect(JSON.stringify(echoed)).toContain('[REDACTED]');
    const failed = await search(
      { provider: 'http', endpoint: `${server.origin}/error`, apiKey: KEY },
      { query: 'x' },
    );
    expect(failed).toMatchObject({ ok: false, error_type: 'provider_error' });
    expect(JSON.stringify(failed)).not.toContain(KEY);
  });

  it('caps provider responses, times out, and refuses non-JSON', async () => {
    expect(
      await search(
        { provider: 'http', endpoint: `${server.origin}/huge`, maxResponseBytes: 64 * 1024 },
        { query: 'x' },
      ),
    ).toMatchObject({ ok: false, error_type: 'too_large' });
    const started = Date.now();
    expect(
      await search(
        { provider: 'http', endpoint: `${server.origin}/slow`, timeoutMs: 500 },
        { query: 'x' },
      ),
    ).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(
      await search({ provider: 'http', endpoint: `${server.origin}/not-json` }, { query: 'x' }),
    ).toMatchObject({ ok: false, error_type: 'provider_error' });
  });

  it('answers odd arguments with invalid_arguments', async () => {
    const web = createWebToolset({ search: { provider: 'fake' } });
    for (const args of [
      JSON.parse('{"__proto__": {"query": "x"}}'),
      { query: 'x'.repeat(10_000) },
      { query: 'x', max_results: 0 },
      { query: 'x', max_results: 1e9 },
      { query: 'x', recency_days: -1 },
      { query: ['x'] },
    ]) {
      expect(await env.gateway.invoke(web.webSearch, args)).toMatchObject({
        ok: false,
        error_type: 'invalid_arguments',
      });
    }
    await web.close();
  });
});
