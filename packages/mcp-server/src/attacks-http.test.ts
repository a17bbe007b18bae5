import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createToolGateway } from '@ksadk/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createKsadkMcpHttpHandler } from './index.js';

import {
  blockingTool,
  echoTool,
  env,
  type Json,
  loopLag,
  parsed,
  payTool,
  pendingOf,
  requestsOf,
  sleep,
  until,
  within,
} from './test-fixtures/attack-kit.js';

// Hostile tests of the Streamable HTTP endpoint: authorization, sessions of other principals,
// bodies, batches, session limits and the idle sweep.

const PROTOCOL = '2025-06-18';
const initBody = (id: number | string = 1, capabilities: Json = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities, clientInfo: { name: 'raw', version: '1' } },
  });

/** A raw POST: `authorization` is the whole header value (none when undefined). */
const post = (
  url: string,
  authorization: string | undefined,
  body: NonNullable<RequestInit['body']>,
  headers: Record<string, string> = {},
  init: RequestInit = {},
) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization !== undefined ? { authorization } : {}),
      ...headers,
    },
    body,
    ...init,
  });

/** The JSON-RPC messages of an SSE (or JSON) response body. */
function messagesOf(text: string): Json[] {
  if (text.trimStart().startsWith('{') || text.trimStart().startsWith('['))
    return [JSON.parse(text) as Json].flat();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Json);
}

/** Opens a session with raw HTTP; returns its id and the headers later requests need. */
async function openSession(url: string, authorization: string, capabilities: Json = {}) {
  const response = await post(url, authorization, initBody(1, capabilities));
  expect(response.status).toBe(200);
  const id = response.headers.get('mcp-session-id')!;
  await response.text();
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
  const initialized = await post(
    url,
    authorization,
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    headers,
  );
  expect(initialized.status).toBe(202);
  return { id, headers };
}

/** A handler from createKsadkMcpHttpHandler on a node:http server (so the test sees its sessions). */
async function serveHandler(options: Parameters<typeof createKsadkMcpHttpHandler>[0]) {
  const handler = createKsadkMcpHttpHandler(options);
  const server = createServer((request, response) => {
    handler(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    handler,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('Streamable HTTP under attack', () => {
  const token = 'attack-token-0123456789-abcdef';

  it('Authorization: only the exact bearer token opens a session', async () => {
    const gateway = createToolGateway({ env });
    const served = await serveHandler({ tools: [echoTool], gateway, token });
    try {
      const cases: [string | undefined, number][] = [
        [undefined, 401],
        ['', 401],
        ['Bearer', 401],
        ['Bearer ', 401],
        [`Bearer ${token}`, 200],
        [`bearer ${token}`, 200],
        [`BEARER ${token}`, 200],
        [`Bearer  ${token}`, 401],
        [`Bearer\t${token}`, 401],
        [`Bearer ${token}x`, 401],
        [`Bearer ${token.slice(0, -1)}`, 401],
        [`Bearer ${token.toUpperCase()}`, 401],
        [`Bearer ${token} ${token}`, 401],
        [`Bearer ${token},Bearer other`, 401],
        [`Basic ${Buffer.from(`user:${token}`).toString('base64')}`, 401],
        [`Token ${token}`, 401],
        [token, 401],
        [`Bearer ${'a'.repeat(8000)}`, 401],
        [`Bearer ${token}${'\u00a0'}`, 401],
      ];
      let opened = 0;
      for (const [authorization, status] of cases) {
        const response = await within(
          5000,
          post(served.url, authorization, initBody()),
          String(authorization).slice(0, 30),
        );
        await response.text();
        expect(response.status, JSON.stringify(authorization?.slice(0, 60))).toBe(status);
        if (status === 200) opened += 1;
      }
      // Trailing spaces are not part of a header value (HTTP strips them): the token still matches.
      const trailing = await post(served.url, `Bearer ${token}   `, initBody());
      await trailing.text();
      expect(trailing.status).toBe(200);
      opened += 1;
      expect(served.handler.sessions()).toBe(opened);
      // A header too large for Node's parser: refused before the handler, and the server lives on.
      const huge = await post(served.url, `Bearer ${'a'.repeat(64 * 1024)}`, initBody()).then(
        (response) => response.status,
        () => 'connection closed',
      );
      expect([431, 'connection closed']).toContain(huge);
      const after = await post(served.url, `Bearer ${token}`, initBody());
      await after.text();
      expect(after.status).toBe(200);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('a resolvePrincipal that throws, rejects or returns nothing answers 401, and the server lives on', async () => {
    const gateway = createToolGateway({ env });
    const served = await serveHandler({
      tools: [echoTool],
      gateway,
      resolvePrincipal: (request) => {
        const how = request.headers['x-how'];
        if (how === 'throw') throw new Error('resolver crashed');
        if (how === 'reject') return Promise.reject(new Error('resolver rejected'));
        if (how === 'null') return null as never;
        if (how === 'ok') return { accountId: 'acct' };
        return undefined;
      },
    });
    try {
      for (const how of ['throw', 'reject', 'null', 'none']) {
        const response = await post(served.url, undefined, initBody(), { 'x-how': how });
        const text = await response.text();
        expect(response.status, how).toBe(401);
        expect(text).not.toContain('resolver');
      }
      const ok = await post(served.url, undefined, initBody(), { 'x-how': 'ok' });
      await ok.text();
      expect(ok.status).toBe(200);
    } finally {
      await served.close();
    }
  }, 30_000);

  it("another principal's session id is not found for POST, GET and DELETE, and the session survives", async () => {
    const gateway = createToolGateway({ env });
    const users: Record<string, { accountId: string; userId: string }> = {
      'alice-token-0123456789': { accountId: 'acme', userId: 'alice' },
      'bob-token-0123456789ab': { accountId: 'evil', userId: 'bob' },
      'carol-token-0123456789': { accountId: 'acme', userId: 'carol' },
    };
    const served = await serveHandler({
      tools: [echoTool],
      gateway,
      resolvePrincipal: (request) => {
        const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
        return Object.hasOwn(users, bearer) ? users[bearer] : undefined;
      },
    });
    try {
      const alice = await openSession(served.url, 'Bearer alice-token-0123456789');
      const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';
      const call =
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}';
      for (const intruder of ['Bearer bob-token-0123456789ab', 'Bearer carol-token-0123456789']) {
        for (const body of [list, call, initBody(9)]) {
          const response = await post(served.url, intruder, body, alice.headers);
          expect(response.status, `${intruder} POST ${body.slice(0, 60)}`).toBe(404);
          expect(await response.text()).not.toContain('echo');
        }
        for (const method of ['GET', 'DELETE']) {
          const response = await fetch(served.url, {
            method,
            headers: { authorization: intruder, accept: 'text/event-stream', ...alice.headers },
          });
          expect(response.status, `${intruder} ${method}`).toBe(404);
          await response.text();
        }
      }
      for (const forged of [
        alice.id.toUpperCase(),
        ` ${alice.id}x`,
        `${alice.id}x`,
        alice.id.slice(0, -1),
        '__proto__',
        'constructor',
      ]) {
        const response = await post(served.url, 'Bearer alice-token-0123456789', list, {
          ...alice.headers,
          'mcp-session-id': forged,
        });
        await response.text();
        expect(response.status, forged).toBe(404);
      }
      expect(served.handler.sessions()).toBe(1);
      const still = await post(served.url, 'Bearer alice-token-0123456789', list, alice.headers);
      expect(still.status).toBe(200);
      expect(messagesOf(await still.text())[0]).toMatchObject({
        id: 2,
        result: { tools: [{ name: 'echo' }] },
      });
    } finally {
      await served.close();
    }
  }, 30_000);

  it('GET, DELETE and non-initialize POSTs without a session are refused', async () => {
    const gateway = createToolGateway({ env });
    const served = await serveHandler({ tools: [echoTool], gateway, token });
    try {
      const auth = `Bearer ${token}`;
      for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
        const response = await fetch(served.url, {
          method,
          headers: { authorization: auth, accept: 'text/event-stream, application/json' },
          ...(method === 'PUT' || method === 'PATCH' ? { body: initBody() } : {}),
        });
        await response.text();
        expect(response.status, method).toBe(400);
      }
      for (const body of [
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":0,"result":{"action":"accept"}}',
        '[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}]',
      ]) {
        const response = await post(served.url, auth, body);
        await response.text();
        expect(response.status, body).toBe(400);
      }
      expect(served.handler.sessions()).toBe(0);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('bodies: exactly the limit passes, one byte over is 413 (declared or chunked); junk JSON is 4xx', async () => {
    const gateway = createToolGateway({ env });
    const limit = 1000;
    const served = await serveHandler({ tools: [echoTool], gateway, token, maxBodyBytes: limit });
    try {
      const auth = `Bearer ${token}`;
      const session = await openSession(served.url, auth);
      const sized = (bytes: number) => {
        const base = '{"jsonrpc":"2.0","id":5,"method":"tools/list"}';
        return base.slice(0, -1) + ' '.repeat(bytes - base.length) + '}';
      };
      expect(Buffer.byteLength(sized(limit))).toBe(limit);
      const chunked = (text: string) =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            const bytes = new TextEncoder().encode(text);
            for (let at = 0; at < bytes.length; at += 100)
              controller.enqueue(bytes.slice(at, at + 100));
            controller.close();
          },
        });
      const send = (body: NonNullable<RequestInit['body']>, chunkedBody = false) =>
        post(
          served.url,
          auth,
          body,
          session.headers,
          chunkedBody ? ({ duplex: 'half' } as RequestInit) : {},
        ).then(
          async (response) => ({ status: response.status, text: await response.text() }),
          (error: unknown) => ({ status: 0, text: String(error) }),
        );
      const under = await send(sized(limit));
      expect(under.status).toBe(200);
      expect(messagesOf(under.text)[0]).toMatchObject({
        id: 5,
        result: { tools: [{ name: 'echo' }] },
      });
      expect((await send(sized(limit + 1))).status).toBe(413);
      expect((await send(chunked(sized(limit)), true)).status).toBe(200);
      const over = await send(chunked(sized(limit + 1)), true);
      // The client must be told why (a 413), not just see its connection cut.
      expect(over.status, over.text).toBe(413);
      // A multi-byte body: the limit is in bytes, not characters.
      const wide = `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"x":"${'é'.repeat(480)}"}}}`;
      expect(wide.length).toBeLessThan(limit);
      expect(Buffer.byteLength(wide)).toBeGreaterThan(limit);
      expect((await send(wide)).status).toBe(413);

      let nested = '';
      for (let level = 0; level < 400; level += 1) nested = `[${nested}]`;
      for (const junk of [
        '',
        'x',
        '{',
        '{"jsonrpc":"2.0"',
        'null',
        '[]',
        '"tools/list"',
        '42',
        '[null]',
        '{}',
        nested.slice(0, 990),
      ]) {
        const { value: answer, lag } = await loopLag(() => send(junk));
        // An empty batch holds no request: the SDK answers 202, which is harmless.
        if (junk === '[]') expect(answer.status).toBe(202);
        else expect(answer.status, JSON.stringify(junk.slice(0, 30))).toBeGreaterThanOrEqual(400);
        expect(answer.status, JSON.stringify(junk.slice(0, 30))).toBeLessThan(500);
        expect(lag).toBeLessThan(1000);
      }
      const after = await send(sized(200));
      expect(after.status).toBe(200);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('a JSON-RPC batch of tools/call runs at most maxConcurrentCalls; the rest are service_unavailable', async () => {
    const gateway = createToolGateway({ env });
    const { tool, state } = blockingTool();
    const served = await serveHandler({ tools: [tool], gateway, token, maxConcurrentCalls: 3 });
    try {
      const auth = `Bearer ${token}`;
      const session = await openSession(served.url, auth);
      const batch = Array.from({ length: 100 }, (_, n) => ({
        jsonrpc: '2.0',
        id: n + 10,
        method: 'tools/call',
        params: { name: 'block', arguments: { n } },
      }));
      const response = post(served.url, auth, JSON.stringify(batch), session.headers);
      await until(() => state.started === 3);
      await sleep(100);
      expect(state.active).toBe(3);
      state.release();
      const reply = await within(10_000, response);
      expect(reply.status).toBe(200);
      const messages = messagesOf(await within(10_000, reply.text()));
      expect(messages).toHaveLength(100);
      const bodies = messages.map((message) => parsed(message['result']));
      expect(bodies.filter((body) => body['ok'] === true)).toHaveLength(3);
      expect(bodies.filter((body) => body['error_type'] === 'service_unavailable')).toHaveLength(
        97,
      );
      expect(state.peak).toBe(3);
      expect(new Set(messages.map((message) => message['id'])).size).toBe(100);
      // One over the SDK's batch limit is refused whole; nothing ran.
      const started = state.started;
      const tooMany = await post(
        served.url,
        auth,
        JSON.stringify([...batch, { ...batch[0], id: 999 }]),
        session.headers,
      );
      await tooMany.text();
      expect(tooMany.status).toBe(400);
      expect(state.started).toBe(started);
      // initialize inside a batch without a session: refused, and no session is left behind.
      const before = served.handler.sessions();
      const sneaky = await post(
        served.url,
        auth,
        JSON.stringify([JSON.parse(initBody(1)), batch[0]]),
      );
      await sneaky.text();
      expect(sneaky.status).toBe(400);
      expect(served.handler.sessions()).toBe(before);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('maxSessions: the next one is 503; DELETE and close free a place', async () => {
    const gateway = createToolGateway({ env });
    const served = await serveHandler({ tools: [echoTool], gateway, token, maxSessions: 2 });
    try {
      const auth = `Bearer ${token}`;
      const one = await openSession(served.url, auth);
      const sdk = new Client({ name: 'sdk', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: auth } },
      });
      await sdk.connect(transport);
      expect(served.handler.sessions()).toBe(2);
      const full = await post(served.url, auth, initBody());
      await full.text();
      expect(full.status).toBe(503);
      const deleted = await fetch(served.url, {
        method: 'DELETE',
        headers: { authorization: auth, ...one.headers },
      });
      await deleted.text();
      expect(deleted.status).toBe(200);
      expect(served.handler.sessions()).toBe(1);
      // The deleted session is gone for good.
      const gone = await post(
        served.url,
        auth,
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        one.headers,
      );
      await gone.text();
      expect(gone.status).toBe(404);
      await openSession(served.url, auth);
      expect(served.handler.sessions()).toBe(2);
      await transport.terminateSession();
      await sdk.close();
      expect(served.handler.sessions()).toBe(1);
      await openSession(served.url, auth);
      expect(served.handler.sessions()).toBe(2);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('maxSessions holds under concurrent initialize requests', async () => {
    const gateway = createToolGateway({ env });
    // A resolver that takes a moment (a database, a token introspection endpoint).
    const served = await serveHandler({
      tools: [echoTool],
      gateway,
      maxSessions: 2,
      resolvePrincipal: async () => {
        await sleep(20);
        return { accountId: 'tenant' };
      },
    });
    try {
      const auth = 'Bearer whatever';
      const replies = await within(
        10_000,
        Promise.all(
          Array.from({ length: 12 }, (_, n) =>
            post(served.url, auth, initBody(n)).then(async (response) => {
              await response.text();
              return response.status;
            }),
          ),
        ),
      );
      // http-server.ts checks `sessions.size >= most` before `await server.connect()` and the
      // transport's handleRequest, and a session enters the map only in onsessioninitialized:
      // this holds only while nothing between the two waits for I/O (today, microtasks only).
      expect(
        replies.filter((status) => status === 200).length,
        JSON.stringify(replies),
      ).toBeLessThanOrEqual(2);
      expect(served.handler.sessions()).toBeLessThanOrEqual(2);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('a client that disconnects while its call waits for approval: nothing runs, the request is closed', async () => {
    const runs: Json[] = [];
    const gateway = createToolGateway({ env });
    const served = await serveHandler({
      tools: [payTool(runs)],
      gateway,
      token,
      principal: { accountId: 'http-acct', userId: 'u' },
    });
    try {
      const auth = `Bearer ${token}`;
      const session = await openSession(served.url, auth);
      const abort = new AbortController();
      const call = post(
        served.url,
        auth,
        '{"jsonrpc":"2.0","id":"pay","method":"tools/call","params":{"name":"send_payment","arguments":{"to":"x","cents":9}}}',
        session.headers,
        { signal: abort.signal },
      ).then((response) => response.text());
      const [request] = await pendingOf(gateway, 'http-acct');
      abort.abort();
      await call.catch(() => undefined);
      const end = Date.now() + 3000;
      let status: string | undefined;
      while (Date.now() < end) {
        status = (await requestsOf(gateway, 'http-acct'))[0]?.status;
        if (status !== 'pending') break;
        await sleep(20);
      }
      expect(status).toBe('rejected');
      await expect(
        gateway.approve(request!.id, { principal: { accountId: 'http-acct', userId: 'u' } }),
      ).rejects.toThrow();
      await sleep(300);
      expect(runs).toHaveLength(0);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('DELETE of the session, or closing the handler, while calls wait: nothing runs, requests are closed', async () => {
    const runs: Json[] = [];
    const gateway = createToolGateway({ env });
    const served = await serveHandler({
      tools: [payTool(runs)],
      gateway,
      token,
      principal: { accountId: 'closing' },
    });
    const auth = `Bearer ${token}`;
    const pay = (headers: Record<string, string>, to: string) =>
      post(
        served.url,
        auth,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'send_payment', arguments: { to, cents: 1 } },
        }),
        headers,
      ).then(
        (response) => response.text(),
        () => '',
      );
    try {
      const a = await openSession(served.url, auth);
      const b = await openSession(served.url, auth);
      const first = pay(a.headers, 'deleted');
      const second = pay(b.headers, 'closed');
      await pendingOf(gateway, 'closing', 2);
      const deleted = await fetch(served.url, {
        method: 'DELETE',
        headers: { authorization: auth, ...a.headers },
      });
      await deleted.text();
      expect(deleted.status).toBe(200);
      await within(5000, first);
      await served.handler.close();
      await within(5000, second);
      const end = Date.now() + 3000;
      let statuses: string[] = [];
      while (Date.now() < end) {
        statuses = (await requestsOf(gateway, 'closing')).map((request) => request.status);
        if (statuses.every((status) => status !== 'pending')) break;
        await sleep(20);
      }
      expect(statuses).toEqual(['rejected', 'rejected']);
      for (const request of await requestsOf(gateway, 'closing'))
        await expect(
          gateway.approve(request.id, { principal: { accountId: 'closing' } }),
        ).rejects.toThrow();
      await sleep(200);
      expect(runs).toHaveLength(0);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('a session whose call is still running (or waiting for approval) is not closed as idle', async () => {
    const runs: Json[] = [];
    const gateway = createToolGateway({ env });
    const { tool, state } = blockingTool();
    const served = await serveHandler({
      tools: [payTool(runs), tool],
      gateway,
      token,
      principal: { accountId: 'idle' },
      idleMs: 300,
      approvals: { waitMs: 10_000 },
    });
    try {
      const auth = `Bearer ${token}`;
      const session = await openSession(served.url, auth);
      const call = (id: number, name: string, args: Json) =>
        post(
          served.url,
          auth,
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name, arguments: args },
          }),
          session.headers,
        ).then(async (response) => messagesOf(await response.text()));
      // A tool that takes a while (a build, a test run): 1.2 s, four idle periods.
      const slow = call(2, 'block', { n: 1 });
      await until(() => state.started === 1);
      await sleep(1200);
      state.release();
      const slowAnswer = (await within(5000, slow)).find((message) => message['id'] === 2);
      // A session with a call still running or waiting for approval is not idle, however long
      // ago its last request arrived.
      expect(slowAnswer && parsed(slowAnswer['result'])).toMatchObject({ ok: true, n: 1 });
      const paying = call(3, 'send_payment', { to: 'x', cents: 1 });
      const [request] = await pendingOf(gateway, 'idle');
      await sleep(1200);
      await gateway.approve(request!.id, { principal: { accountId: 'idle' } });
      const answer = (await within(5000, paying)).find((message) => message['id'] === 3);
      expect(answer && parsed(answer['result'])).toMatchObject({ ok: true, sent: 1 });
      expect(runs).toHaveLength(1);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('an elicitation answer posted to another session of the same user approves nothing there', async () => {
    const runs: Json[] = [];
    const gateway = createToolGateway({ env });
    const served = await serveHandler({
      tools: [payTool(runs)],
      gateway,
      token,
      principal: { accountId: 'two-sessions' },
      approvals: { waitMs: 1500 },
    });
    try {
      const auth = `Bearer ${token}`;
      const a = await openSession(served.url, auth, { elicitation: {} });
      const b = await openSession(served.url, auth, { elicitation: {} });
      const call = post(
        served.url,
        auth,
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_payment","arguments":{"to":"x","cents":1}}}',
        a.headers,
      ).then((response) => response.text());
      await pendingOf(gateway, 'two-sessions');
      // Session B answers "accept" to every id the elicitation in A could have.
      for (const id of [0, 1, 2, '0']) {
        const forged = await post(
          served.url,
          auth,
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            result: { action: 'accept', content: { always: true } },
          }),
          b.headers,
        );
        await forged.text();
        expect(forged.status).toBe(202);
      }
      const messages = messagesOf(await within(10_000, call));
      const asked = messages.find((message) => message['method'] === 'elicitation/create');
      expect(asked).toBeDefined();
      const answer = messages.find((message) => message['id'] === 1)!;
      expect(parsed(answer['result'])).toMatchObject({ ok: false, error_type: 'approval_expired' });
      expect(runs).toHaveLength(0);
    } finally {
      await served.close();
    }
  }, 30_000);
});
