// For the console's tests: a gateway with a few tools, requests made as given principals, and
// requests sent to the console's Fetch handler as a browser of the same origin would send them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type ApprovalRequiredResult,
  createToolGateway,
  defineTool,
  runWithInvocationContext,
  type ToolGateway,
} from '@ksadk/core';
import { z } from 'zod';
import { createKsadkConsole, type KsadkConsole, type KsadkConsoleOptions } from '../index.js';

/** A 1×1 PNG. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export const writeNote = defineTool({
  name: 'write_note',
  description: 'Writes a note.',
  input: z.object({ path: z.string().max(200), text: z.string() }),
  policy: { riskLevel: 'high', sideEffects: ['notes_write'] },
  execute: ({ path: where, text }) => ({ ok: true, path: where, chars: text.length }),
});

/** A 44-byte WAV header with no samples: a valid, silent sound. */
export const WAV = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([36, 0, 0, 0]),
  Buffer.from('WAVEfmt '),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data'),
  Buffer.from([0, 0, 0, 0]),
]).toString('base64');

export const speak = defineTool({
  name: 'speak',
  description: 'Says something out loud.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => ({
    ok: true,
    text,
    media: [{ type: 'audio', mime_type: 'audio/wav', data: WAV }],
  }),
});

export const drawChart = defineTool({
  name: 'draw_chart',
  description: 'Draws a chart.',
  input: z.object({ title: z.string() }),
  execute: ({ title }) => ({
    ok: true,
    title,
    report: 'x'.repeat(200_000),
    media: [{ type: 'image', mime_type: 'image/png', data: PNG }],
  }),
});

/** Who calls: an account, a user, a session. */
export interface Caller {
  readonly accountId: string;
  readonly userId: string;
  readonly sessionId: string;
}
export const alice: Caller = { accountId: 'acme', userId: 'alice', sessionId: 's-alice' };
export const mallory: Caller = { accountId: 'evil', userId: 'mallory', sessionId: 's-mallory' };

/** A gateway whose result store is a fresh folder (and `options`), and how to remove it. */
export async function testGateway(
  options: Parameters<typeof createToolGateway>[0] = {},
): Promise<{ gateway: ToolGateway; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-console-'));
  const gateway = createToolGateway({
    env: {},
    approvalMode: 'risk',
    budget: { persistDir: dir },
    ...options,
  });
  return { gateway, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Calls `tool` as `caller`: the call's result (an approval request for a gated tool). */
export function callAs(
  gateway: ToolGateway,
  caller: Caller,
  tool: Parameters<ToolGateway['invoke']>[0],
  args: unknown,
  callId?: string,
) {
  return runWithInvocationContext(caller, () =>
    gateway.invoke(tool, args, callId ? { callId } : {}),
  );
}

/** A pending request made by `caller`: its id. */
export async function pendingAs(
  gateway: ToolGateway,
  caller: Caller,
  args: Record<string, unknown> = { path: 'a.md', text: 'hello' },
  callId = `call-${Math.random().toString(36).slice(2)}`,
): Promise<string> {
  const result = (await callAs(
    gateway,
    caller,
    writeNote,
    args,
    callId,
  )) as unknown as ApprovalRequiredResult;
  if (result.type !== 'approval_required')
    throw new Error(`expected a request, got ${JSON.stringify(result)}`);
  return result.approval_request.id;
}

/** A console whose principal is the `x-test-user` header (`acme:alice`), as a host's session would give it. */
export function headerConsole(
  gateway: ToolGateway,
  options: Partial<KsadkConsoleOptions> = {},
): KsadkConsole {
  return createKsadkConsole({
    gateway,
    tools: [writeNote, drawChart],
    resolvePrincipal: (request) => {
      const user = request.headers.get('x-test-user');
      if (!user) return undefined;
      if (user === 'admin') return { admin: true };
      const [accountId = '', userId] = user.split(':');
      return { accountId, ...(userId ? { userId } : {}) };
    },
    ...options,
  });
}

/** The page token of a principal, read from the page as the app reads it. */
export async function pageToken(console: KsadkConsole, user: string): Promise<string> {
  const page = await console.fetch(
    new Request('http://127.0.0.1:4000/', { headers: { 'x-test-user': user } }),
  );
  const html = await page.text();
  const token = /name="ksadk-csrf" content="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no page token');
  return token;
}

/** A GET of `api/<path>` as `user`. */
export function getAs(console: KsadkConsole, user: string, path: string): Promise<Response> {
  return console.fetch(
    new Request(`http://127.0.0.1:4000/api/${path}`, { headers: { 'x-test-user': user } }),
  );
}

/** A same-origin POST of `body` to `api/<path>` as `user`, with the page token. */
export async function postAs(
  console: KsadkConsole,
  user: string,
  path: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return console.fetch(
    new Request(`http://127.0.0.1:4000/api/${path}`, {
      method: 'POST',
      headers: {
        'x-test-user': user,
        'content-type': 'application/json',
        origin: 'http://127.0.0.1:4000',
        'sec-fetch-site': 'same-origin',
        'x-ksadk-csrf': await pageToken(console, user),
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}
