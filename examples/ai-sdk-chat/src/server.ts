import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { settleApprovalResponses, toAiSdkTools } from '@ksadk/ai-sdk';
import { createToolGateway, runWithInvocationContext, type ToolGateway } from '@ksadk/core';
import {
  convertToModelMessages,
  type LanguageModel,
  stepCountIs,
  streamText,
  type UIMessage,
} from 'ai';
import { demoModel } from './demo-model.js';
import { notesTools } from './notes-tools.js';

const PUBLIC = new URL('../public/', import.meta.url);
const MAX_BODY_BYTES = 1024 * 1024;
const TOO_LARGE = Symbol('too large');
const PAGES: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/chat.js': ['chat.js', 'text/javascript; charset=utf-8'],
};

/** Who is asking: a real host reads its own session (a cookie, a bearer token). */
export type ResolvePrincipal = (
  request: IncomingMessage,
) => { accountId: string; userId: string } | undefined;

/** The demo's principal: one user, or the one named by the `x-demo-user` header (for the tests). */
const demoPrincipal: ResolvePrincipal = (request) => {
  const named = request.headers['x-demo-user'];
  const user = typeof named === 'string' && /^[a-z0-9-]{1,40}$/.test(named) ? named : 'demo-user';
  return { accountId: `demo-${user}`, userId: user };
};

export interface ChatServerOptions {
  readonly port?: number;
  /** The gateway; its approval store carries a paused call from one request to the next. */
  readonly gateway?: ToolGateway;
  /** The model of each request. @default the demo's (OpenAI with `OPENAI_API_KEY`, else scripted) */
  readonly model?: () => LanguageModel;
  readonly resolvePrincipal?: ResolvePrincipal;
  /** The notes the tools write. */
  readonly notes?: Map<string, string>;
}

export interface ChatServer {
  readonly url: string;
  readonly server: Server;
  readonly gateway: ToolGateway;
  readonly notes: Map<string, string>;
  close(): Promise<void>;
}

/** The JSON body, or `'too large'` (read to its end, kept no further than the limit). */
async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) return TOO_LARGE;
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function fail(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: message }));
}

/**
 * The chat server: the static page, and `POST /api/chat`, which speaks the AI SDK's UI message
 * stream (what `useChat` and the SDK's `Chat` send and read). Each request is stateless: the
 * messages come from the client, the paused calls live in the gateway's approval store, and a
 * call runs only through the gateway's grant for the request it made.
 */
export async function startChatServer(options: ChatServerOptions = {}): Promise<ChatServer> {
  const gateway = options.gateway ?? createToolGateway({ env: {} });
  const notes = options.notes ?? new Map<string, string>();
  const model = options.model ?? (() => demoModel());
  const resolvePrincipal = options.resolvePrincipal ?? demoPrincipal;
  const tools = toAiSdkTools(notesTools(notes), { gateway });

  const chat = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const principal = resolvePrincipal(request);
    if (!principal) return fail(response, 401, 'sign in first');
    let body: { id?: unknown; messages?: unknown };
    try {
      body = (await bodyOf(request)) as typeof body;
    } catch {
      return fail(response, 400, 'the body must be JSON');
    }
    if ((body as unknown) === TOO_LARGE) return fail(response, 413, 'the body is over 1 MB');
    // The chat's id (what useChat sends) is the session. A real host also checks that the chat
    // belongs to the signed-in user; in this demo each user's chats are theirs by construction.
    const sessionId = typeof body.id === 'string' ? body.id.slice(0, 100) : 'default';
    if (!Array.isArray(body.messages)) return fail(response, 400, 'messages must be a list');
    let messages: Awaited<ReturnType<typeof convertToModelMessages>>;
    try {
      messages = await convertToModelMessages(body.messages as UIMessage[], { tools });
    } catch {
      return fail(response, 400, 'the messages could not be read');
    }
    const result = await runWithInvocationContext({ ...principal, sessionId }, async () => {
      // The user's denials are final at once, whatever the model does next.
      await settleApprovalResponses(tools, messages);
      return streamText({ model: model(), tools, messages, stopWhen: stepCountIs(4) });
    });
    const streamed = result.toUIMessageStreamResponse();
    response.writeHead(streamed.status, Object.fromEntries(streamed.headers));
    if (!streamed.body) return void response.end();
    const stream = Readable.fromWeb(streamed.body as never);
    // A stream that fails mid-way ends this response, never the server.
    stream.on('error', () => response.destroy());
    stream.pipe(response);
  };

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'POST' && path === '/api/chat') {
      chat(request, response).catch(() => {
        if (response.headersSent) response.destroy();
        else fail(response, 500, 'the chat failed');
      });
      return;
    }
    const page = PAGES[path];
    if (request.method !== 'GET' || !page) return fail(response, 404, 'not found');
    readFile(new URL(page[0], PUBLIC)).then(
      (content) => {
        response.writeHead(200, {
          'content-type': page[1],
          'content-security-policy': "default-src 'self'; script-src 'self'",
        });
        response.end(content);
      },
      () => fail(response, 500, 'page missing'),
    );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    gateway,
    notes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
