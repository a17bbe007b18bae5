import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A Node request as a Fetch `Request` (its body streamed, not buffered). */
function requestOf(request: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // Without a Host header there is no address to answer for: it is refused as misdirected.
  const url = `http://${request.headers.host ?? 'invalid.invalid'}${request.url ?? '/'}`;
  const method = request.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    signal,
    ...(hasBody
      ? { body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: 'half' }
      : {}),
  } as RequestInit);
}

/** Writes a Fetch `Response` to a Node response, streaming its body; a gone client cancels it. */
async function send(answer: Response, response: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  response.writeHead(answer.status, headers);
  if (!answer.body) {
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  response.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!response.write(value)) await new Promise((resolve) => response.once('drain', resolve));
    }
    response.end();
  } catch {
    response.destroy();
  } finally {
    response.off('close', stop);
  }
}

/**
 * The console's Fetch handler as a Node `(req, res)` handler: for `node:http`, Express
 * (`app.use('/console', console.node)`) and anything else that hands over Node's request.
 */
export function nodeHandlerOf(
  fetch: (request: Request) => Promise<Response>,
  maxBodyBytes: number,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > maxBodyBytes) {
      response.writeHead(413, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { code: 'bad_body', message: 'The request body is too large.' } }),
      );
      request.resume();
      return;
    }
    const aborted = new AbortController();
    response.once('close', () => aborted.abort());
    let answer: Response;
    try {
      answer = await fetch(requestOf(request, aborted.signal));
    } catch {
      answer = new Response(null, { status: 500 });
    }
    await send(answer, response);
  };
}
