import type { ToolGateway } from '@ksadk/core';
import { type ConsolePrincipal, principalKey } from './console-auth.js';
import { headersFor } from './http-kit.js';

/** Live updates for the console's pages, as server-sent events. */
export interface ConsoleEvents {
  /**
   * An event stream for one principal: `approvals` when its inbox changed (a request arrived, or
   * was decided here or on another instance), `calls` when a call started or ended. Only what the
   * principal may see is ever looked at.
   */
  stream(principal: ConsolePrincipal): Response;
  /** Something changed for this principal (a decision made here): tell its streams at once. */
  changed(principal: ConsolePrincipal): void;
  /** Open streams now. */
  streams(): number;
  /** Ends every stream and stops polling. */
  close(): void;
}

/** Options of {@link createConsoleEvents}. */
export interface ConsoleEventsOptions {
  readonly gateway: ToolGateway;
  /** How often the stores are looked at while a stream is open. */
  readonly pollMs: number;
  /** Open streams at most; one beyond answers 503. */
  readonly maxStreams: number;
  /** Open streams of one principal at most, so that one cannot take every place. */
  readonly maxStreamsPerPrincipal: number;
}

/** Comment lines that keep proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** How many of the newest records a poll compares. */
const WINDOW = 20;

interface Watcher {
  readonly principal: ConsolePrincipal;
  readonly streams: Set<ReadableStreamDefaultController<Uint8Array>>;
  timer: NodeJS.Timeout | undefined;
  polling: boolean;
  /** Fingerprints of what the last poll saw (undefined before the first). */
  approvals: string | undefined;
  calls: string | undefined;
  auditAt: number;
}

const encoder = new TextEncoder();
const frame = (event: string, data: unknown) =>
  encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

/**
 * The console's event hub. While a principal has a stream open, its newest pending requests, its
 * newest audit records and its newest calls are looked at every `pollMs` — through the gateway, so
 * decisions made on another instance sharing the stores show too — and its streams are told what
 * changed. Nothing is polled for a principal with no stream open.
 */
export function createConsoleEvents(options: ConsoleEventsOptions): ConsoleEvents {
  const { gateway, pollMs, maxStreams, maxStreamsPerPrincipal } = options;
  const watchers = new Map<string, Watcher>();
  let open = 0;
  let closed = false;

  const send = (watcher: Watcher, event: string, data: unknown): void => {
    const bytes = frame(event, data);
    for (const controller of watcher.streams) {
      try {
        controller.enqueue(bytes);
      } catch {
        watcher.streams.delete(controller);
      }
    }
  };

  const poll = async (watcher: Watcher): Promise<void> => {
    const { principal } = watcher;
    const [pending, audit, calls] = await Promise.all([
      gateway.listApprovalRequests({ principal, status: 'pending', limit: WINDOW }),
      gateway.auditLog({ principal, since: watcher.auditAt, limit: WINDOW }),
      gateway.executions({ principal, limit: WINDOW }),
    ]);
    const approvals = pending.items.map((item) => item.id).join(',');
    const newest = audit.items[0]?.at ?? watcher.auditAt;
    const decided = audit.items.some((entry) => entry.at > watcher.auditAt);
    const callPrint = calls.items.map((record) => `${record.id}:${record.outcome}`).join(',');
    if (watcher.approvals !== undefined && (approvals !== watcher.approvals || decided))
      send(watcher, 'approvals', { at: Date.now() });
    if (watcher.calls !== undefined && (callPrint !== watcher.calls || decided))
      send(watcher, 'calls', { at: Date.now() });
    watcher.approvals = approvals;
    watcher.calls = callPrint;
    watcher.auditAt = newest;
  };

  const schedule = (watcher: Watcher, delay: number): void => {
    if (closed || watcher.streams.size === 0 || watcher.timer || watcher.polling) return;
    watcher.timer = setTimeout(() => {
      watcher.timer = undefined;
      watcher.polling = true;
      poll(watcher)
        .catch(() => send(watcher, 'problem', { message: 'The stores could not be read.' }))
        .finally(() => {
          watcher.polling = false;
          schedule(watcher, pollMs);
        });
    }, delay);
    watcher.timer.unref?.();
  };

  const heartbeat = setInterval(() => {
    const ping = encoder.encode(': ping\n\n');
    for (const watcher of watchers.values())
      for (const controller of watcher.streams) {
        try {
          controller.enqueue(ping);
        } catch {
          watcher.streams.delete(controller);
        }
      }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  return {
    stream(principal) {
      const key = principalKey(principal);
      if (
        closed ||
        open >= maxStreams ||
        (watchers.get(key)?.streams.size ?? 0) >= maxStreamsPerPrincipal
      )
        return new Response('Too many open event streams.', {
          status: 503,
          headers: headersFor('text/plain; charset=utf-8', { 'retry-after': '5' }),
        });
      let watcher = watchers.get(key);
      if (!watcher) {
        watcher = {
          principal,
          streams: new Set(),
          timer: undefined,
          polling: false,
          approvals: undefined,
          calls: undefined,
          auditAt: Date.now(),
        };
        watchers.set(key, watcher);
      }
      const owner = watcher;
      let mine: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          mine = controller;
          owner.streams.add(controller);
          open += 1;
          controller.enqueue(encoder.encode('retry: 2000\n\n'));
          controller.enqueue(frame('ready', { at: Date.now() }));
          schedule(owner, 0);
        },
        cancel() {
          if (mine && owner.streams.delete(mine)) open -= 1;
          if (owner.streams.size === 0) {
            clearTimeout(owner.timer);
            owner.timer = undefined;
            watchers.delete(key);
          }
        },
      });
      return new Response(body, {
        headers: headersFor('text/event-stream; charset=utf-8', { 'x-accel-buffering': 'no' }),
      });
    },
    changed(principal) {
      const watcher = watchers.get(principalKey(principal));
      if (!watcher) return;
      send(watcher, 'approvals', { at: Date.now() });
      send(watcher, 'calls', { at: Date.now() });
    },
    streams: () => open,
    close() {
      closed = true;
      clearInterval(heartbeat);
      for (const watcher of watchers.values()) {
        clearTimeout(watcher.timer);
        for (const controller of watcher.streams) {
          try {
            controller.close();
          } catch {
            // already closed
          }
        }
        watcher.streams.clear();
      }
      watchers.clear();
      open = 0;
    },
  };
}
