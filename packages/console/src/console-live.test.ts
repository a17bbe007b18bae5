import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { KsadkConsole } from './index.js';
import {
  alice,
  headerConsole,
  mallory,
  pendingAs,
  testGateway,
} from './test-fixtures/console-setup.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The console behind a real node:http server (its Node handler), and its address. */
async function served(console: KsadkConsole): Promise<string> {
  const server = createServer((request, response) => void console.node(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Reads server-sent events as `user`, recording each event's name and when it came. */
function listen(base: string, user: string) {
  const events: { name: string; at: number }[] = [];
  const stop = new AbortController();
  const done = (async () => {
    const response = await fetch(`${base}/api/events`, {
      headers: { 'x-test-user': user },
      signal: stop.signal,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (const match of buffer.matchAll(/^event: (\w+)$/gm))
        events.push({ name: match[1]!, at: Date.now() });
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    }
  })().catch(() => undefined);
  cleanups.push(async () => {
    stop.abort();
    await done;
  });
  return { events, stop: () => stop.abort(), done };
}

const until = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
};

describe('live updates', () => {
  it("a principal's stream hears of its own new request within a second; another account's hears nothing", {
    timeout: 15_000,
  }, async () => {
    const { gateway, cleanup } = await testGateway();
    const console = headerConsole(gateway);
    cleanups.push(cleanup, () => console.close());
    const base = await served(console);
    const mine = listen(base, 'acme:alice');
    const theirs = listen(base, 'evil:mallory');
    expect(await until(() => mine.events.some((event) => event.name === 'ready'), 3000)).toBe(true);
    expect(await until(() => theirs.events.some((event) => event.name === 'ready'), 3000)).toBe(
      true,
    );
    await new Promise((resolve) => setTimeout(resolve, 400)); // the first poll sets what is known
    const asked = Date.now();
    await pendingAs(gateway, alice);
    expect(await until(() => mine.events.some((event) => event.name === 'approvals'), 2000)).toBe(
      true,
    );
    const heard = mine.events.find((event) => event.name === 'approvals')!;
    expect(heard.at - asked).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(theirs.events.map((event) => event.name)).toEqual(['ready']);
    // Mallory's own request reaches her stream, not Alice's a second time.
    const before = mine.events.length;
    await pendingAs(gateway, mallory);
    expect(await until(() => theirs.events.some((event) => event.name === 'approvals'), 2000)).toBe(
      true,
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(mine.events.length).toBe(before);
  });

  it('one principal cannot take every place: its own streams are bounded', {
    timeout: 15_000,
  }, async () => {
    const { gateway, cleanup } = await testGateway();
    const console = headerConsole(gateway, { maxEventStreams: 10, maxEventStreamsPerPrincipal: 2 });
    cleanups.push(cleanup, () => console.close());
    const base = await served(console);
    const first = listen(base, 'evil:mallory');
    const second = listen(base, 'evil:mallory');
    expect(await until(() => first.events.length > 0 && second.events.length > 0, 3000)).toBe(true);
    const more = await fetch(`${base}/api/events`, { headers: { 'x-test-user': 'evil:mallory' } });
    expect(more.status).toBe(503);
    const alice = await fetch(`${base}/api/events`, { headers: { 'x-test-user': 'acme:alice' } });
    expect(alice.status).toBe(200);
    await alice.body?.cancel();
  });

  it('bounds the open streams, frees a place when a client goes, and ends every stream on close', {
    timeout: 15_000,
  }, async () => {
    const { gateway, cleanup } = await testGateway();
    const console = headerConsole(gateway, { maxEventStreams: 2 });
    cleanups.push(cleanup);
    const base = await served(console);
    const first = listen(base, 'acme:alice');
    const second = listen(base, 'acme:bob');
    expect(await until(() => first.events.length > 0 && second.events.length > 0, 3000)).toBe(true);
    const third = await fetch(`${base}/api/events`, { headers: { 'x-test-user': 'evil:mallory' } });
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('5');
    first.stop();
    await first.done;
    await new Promise((resolve) => setTimeout(resolve, 300)); // the server sees the client go
    const again = await fetch(`${base}/api/events`, { headers: { 'x-test-user': 'evil:mallory' } });
    expect(again.status).toBe(200);
    await again.body?.cancel();
    await console.close();
    await second.done; // the stream ended: the server closed it
  });
});
