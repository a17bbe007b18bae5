import { type ApprovalInboxItem, defineTool, type ToolGateway } from '@ksadk/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createKsadkMcpServer, type KsadkMcpServerOptions } from '../index.js';

export const env = { KSADK_TOOL_APPROVAL_MODE: 'ask' };

export type Json = Record<string, unknown>;
export type Policy = Parameters<typeof defineTool>[0]['policy'];

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects when `promise` takes longer than `ms`: a stalled server fails the test, not the run. */
export function within<T>(ms: number, promise: Promise<T>, what = 'the call'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The longest the event loop stalled while `run` ran (a 10 ms ticker's widest gap). */
export async function loopLag<T>(run: () => Promise<T>): Promise<{ value: T; lag: number }> {
  let last = Date.now();
  let lag = 0;
  const ticker = setInterval(() => {
    const now = Date.now();
    lag = Math.max(lag, now - last);
    last = now;
  }, 10);
  try {
    const value = await run();
    lag = Math.max(lag, Date.now() - last);
    return { value, lag };
  } finally {
    clearInterval(ticker);
  }
}

/** A gated payment tool that records each run. */
export function payTool(
  runs: Json[],
  policy: Policy = { riskLevel: 'high', sideEffects: ['payment'] },
) {
  return defineTool({
    name: 'send_payment',
    description: 'Sends money.',
    input: z.object({ to: z.string(), cents: z.number().int() }).strict(),
    policy,
    execute: (args) => {
      runs.push(args);
      return { sent: args.cents, to: args.to };
    },
  });
}

/** A low-risk tool that echoes what it was given (any extra keys pass through to it). */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Echoes.',
  input: z.object({ a: z.unknown() }).passthrough(),
  execute: (args) => ({ echoed: Object.keys(args).length }),
});

/** A tool that waits until released (or aborted), counting how many run at once. */
export function blockingTool(options: { ignoreAbort?: boolean; name?: string } = {}) {
  const state = { active: 0, peak: 0, started: 0, finished: 0, release: () => {} };
  let released = new Promise<void>((resolve) => {
    state.release = resolve;
  });
  const tool = defineTool({
    name: options.name ?? 'block',
    description: 'Blocks.',
    input: z.object({ n: z.number().int() }),
    timeoutMs: 30_000,
    execute: async (args, { signal }) => {
      state.active += 1;
      state.started += 1;
      state.peak = Math.max(state.peak, state.active);
      try {
        await new Promise<void>((resolve) => {
          void released.then(resolve);
          if (!options.ignoreAbort) signal.addEventListener('abort', () => resolve());
        });
      } finally {
        state.active -= 1;
        state.finished += 1;
      }
      return { n: args.n };
    },
  });
  const reset = () => {
    released = new Promise<void>((resolve) => {
      state.release = resolve;
    });
  };
  return { tool, state, reset };
}

export type ElicitAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Json };

/** An SDK client and a server over an in-process pair; `answer` (when given) answers elicitations. */
export async function connect(
  options: KsadkMcpServerOptions,
  answer?: (message: string) => ElicitAnswer | Promise<ElicitAnswer>,
) {
  const server = createKsadkMcpServer(options);
  const client = new Client(
    { name: 'attacker', version: '1' },
    { capabilities: answer ? { elicitation: {} } : {} },
  );
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      answer(String(request.params.message)),
    );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return { client, server };
}

/**
 * A raw JSON-RPC peer (no SDK client): it sends exactly what it is told and answers the server's
 * requests with whatever `reply` returns — a whole message, so junk results and errors reach the
 * server as they are.
 */
export async function rawPeer(
  server: Server,
  options: {
    capabilities?: Json;
    reply?: (request: { id: string | number; method: string; params?: Json }) => unknown;
  } = {},
) {
  const [serverSide, peerSide] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<string | number, (message: Json) => void>();
  const notifications: Json[] = [];
  const requests: Json[] = [];
  peerSide.onmessage = (message) => {
    const m = message as Json & { id?: string | number; method?: string };
    if (m.method !== undefined && m.id !== undefined) {
      requests.push(m);
      void Promise.resolve(options.reply?.(m as never)).then((reply) => {
        if (reply !== undefined) void peerSide.send(reply as JSONRPCMessage);
      });
    } else if (m.id !== undefined) {
      waiting.get(m.id)?.(m);
      waiting.delete(m.id);
    } else notifications.push(m);
  };
  await server.connect(serverSide);
  await peerSide.start();
  let next = 1;
  const request = (method: string, params: unknown, id: string | number = next++) =>
    new Promise<Json>((resolve) => {
      waiting.set(id, resolve);
      void peerSide.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    });
  const send = (message: unknown) => peerSide.send(message as JSONRPCMessage);
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: options.capabilities ?? {},
    clientInfo: { name: 'raw', version: '1' },
  });
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { request, send, notifications, requests };
}

/** The gateway JSON a call result carries (its first text part). */
export const parsed = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as Json;

/** The principal's requests, newest first, in any status. */
export const requestsOf = async (
  gateway: ToolGateway,
  accountId: string,
): Promise<readonly ApprovalInboxItem[]> =>
  (await gateway.listApprovalRequests({ principal: { accountId }, status: 'all' })).items;

/** Waits until the principal has `count` pending requests, and returns them. */
export async function pendingOf(
  gateway: ToolGateway,
  accountId: string,
  count = 1,
): Promise<readonly ApprovalInboxItem[]> {
  for (let tries = 0; tries < 250; tries += 1) {
    const page = await gateway.listApprovalRequests({ principal: { accountId } });
    if (page.items.length >= count) return page.items;
    await sleep(20);
  }
  throw new Error(`fewer than ${count} pending requests arrived`);
}

/** Waits until `check` holds, at most `ms`. */
export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await sleep(10);
  }
}
