import { availableParallelism } from 'node:os';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { settleOnce, startWorker, workerScript } from '../util/eval-worker.js';
import {
  type HtmlWorkerData,
  type HtmlWorkerReply,
  type HtmlWorkerRequest,
  runHtmlWorker,
  type WorkerPage,
} from './html-worker-main.js';

/** Why a page was not converted by the worker. */
export type HtmlConversionFailure = 'deadline' | 'aborted' | 'too_large' | 'failed';

/** What {@link convertInWorker} gives back. */
export type HtmlWorkerOutcome =
  | { readonly ok: true; readonly page: WorkerPage }
  | {
      readonly ok: false;
      readonly reason: HtmlConversionFailure;
      /** The thread died, or never started, before it answered (not the page's own failure). */
      readonly crashed?: true;
    };

/** Options of {@link convertInWorker}. */
export interface ConvertInWorkerOptions {
  /** Wall-clock limit, from the call on (thread start included); the worker is terminated at it. */
  readonly deadlineMs: number;
  /** Terminates the worker when it fires. */
  readonly signal?: AbortSignal | undefined;
  /** Limits of a dedicated thread, never reused (tests use it to force an out-of-memory crash). */
  readonly resourceLimits?: ResourceLimits | undefined;
}

/**
 * Heap of one conversion thread, and the most DOM nodes (tags, comments, attributes) of a page it
 * parses. Measured with linkedom 0.18: about 1 KiB of heap per element after parsing, several
 * times that while Readability runs; 300,000 elements convert within 768 MiB, 450,000 do not. A
 * thread that reaches its heap limit is usually ended with `ERR_WORKER_OUT_OF_MEMORY`, but one
 * large allocation at the limit aborts the whole process (nodejs/node#47224): the node budget keeps
 * the heap far from the limit, and a page over it is refused before it is parsed. The 1 MB
 * article page of the benchmark has 35,000 nodes, a 5 MB one 180,000 (it converts in about 13 s).
 */
const MAX_HEAP_MB = 1024;
const MAX_NODES = 250_000;
/**
 * Starting a thread and loading linkedom, Readability and turndown in it costs 150–300 ms, more
 * than converting most pages: one idle thread is kept this long for the next page.
 */
const IDLE_MS = 30_000;

let workerSource: string | undefined;
let paths: Promise<HtmlWorkerData> | undefined;
let idle: { readonly worker: Worker; readonly timer: NodeJS.Timeout } | undefined;
const live = new Set<Worker>();
let lastId = 0;

/** The worker's script: the worker body, by its own source. */
function sourceOfWorker(): string {
  workerSource ??= workerScript(runHtmlWorker, 'workerData, parentPort, require');
  return workerSource;
}

/** The libraries' CommonJS entries, resolved from this module (source or built chunk). */
function resolvePaths(): Promise<HtmlWorkerData> {
  paths ??= import('node:module').then(({ createRequire }) => {
    const require = createRequire(import.meta.url);
    return {
      linkedomPath: require.resolve('linkedom'),
      readabilityPath: require.resolve('@mozilla/readability'),
      turndownPath: require.resolve('turndown'),
      maxNodes: MAX_NODES,
    };
  });
  return paths;
}

async function spawn(resourceLimits: ResourceLimits | undefined): Promise<Worker> {
  const worker = await startWorker(
    sourceOfWorker(),
    await resolvePaths(),
    resourceLimits ?? { maxOldGenerationSizeMb: MAX_HEAP_MB },
  );
  live.add(worker);
  worker.once('exit', () => {
    live.delete(worker);
    if (idle?.worker === worker) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
  });
  return worker;
}

function takeIdle(): Worker | undefined {
  if (!idle) return undefined;
  const { worker, timer } = idle;
  idle = undefined;
  clearTimeout(timer);
  worker.ref();
  return worker;
}

/** Keeps a healthy thread for the next page (one at most), unref'd so it never holds the process. */
function putIdle(worker: Worker): void {
  if (idle) {
    void worker.terminate();
    return;
  }
  worker.unref();
  const timer = setTimeout(() => {
    if (idle?.worker !== worker) return;
    idle = undefined;
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle = { worker, timer };
}

/**
 * Conversions running at once; more wait for a slot (within their own deadline, after which they
 * get the fallback text), so a burst of fetches cannot start a thread — and a heap — each.
 */
const MAX_BUSY = Math.max(2, availableParallelism());
let busy = 0;
const waiting: (() => void)[] = [];

function acquireSlot(): Promise<void> {
  if (busy < MAX_BUSY) {
    busy += 1;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/** Hands the slot to the next waiter, or frees it. */
function releaseSlot(): void {
  const next = waiting.shift();
  if (next) next();
  else busy -= 1;
}

/** Conversion threads started and not yet exited (busy or idle). */
export function liveHtmlWorkers(): number {
  return live.size;
}

/**
 * Converts a page on a worker thread, so no page, however hostile, can stall the event loop: at
 * the deadline, on abort, for a page over the node budget, or when the thread dies (out of memory,
 * a crash) or the conversion throws, the outcome says why, and the thread is terminated unless it
 * is still sound. Never rejects.
 */
export function convertInWorker(
  html: string,
  url: string | undefined,
  options: ConvertInWorkerOptions,
): Promise<HtmlWorkerOutcome> {
  const { deadlineMs, signal, resourceLimits } = options;
  const id = ++lastId;
  let worker: Worker | undefined;
  let slot = false;
  /** An outcome, and whether the thread that gave it is still sound (it may serve another page). */
  type Ended = { readonly outcome: HtmlWorkerOutcome; readonly sound: boolean };
  let onExit = (): void => undefined;
  let onMessage = (_reply: HtmlWorkerReply): void => undefined;
  return settleOnce<Ended>({
    deadlineMs,
    signal,
    stopped: (cause) => ({ outcome: { ok: false, reason: cause }, sound: false }),
    cleanup: ({ sound }) => {
      if (slot) {
        slot = false;
        releaseSlot();
      }
      if (!worker) return;
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      if (sound && !resourceLimits) putIdle(worker);
      else void worker.terminate();
    },
    run: (finish, settled) => {
      const start = (): void => {
        const acquired = resourceLimits ? undefined : takeIdle();
        (acquired ? Promise.resolve(acquired) : spawn(resourceLimits)).then(
          (started) => {
            if (settled()) {
              // Stopped while the thread was starting: it never got the page.
              if (resourceLimits) void started.terminate();
              else putIdle(started);
              return;
            }
            worker = started;
            onMessage = (reply) => {
              if (reply.id !== id) return;
              if ('page' in reply) finish({ outcome: { ok: true, page: reply.page }, sound: true });
              else
                finish({
                  outcome: { ok: false, reason: 'tooLarge' in reply ? 'too_large' : 'failed' },
                  sound: true,
                });
            };
            onExit = () =>
              finish({ outcome: { ok: false, reason: 'failed', crashed: true }, sound: false });
            worker.on('message', onMessage);
            worker.once('exit', onExit);
            worker.postMessage({ id, html, url } satisfies HtmlWorkerRequest);
          },
          () => finish({ outcome: { ok: false, reason: 'failed', crashed: true }, sound: false }),
        );
      };
      void acquireSlot().then(() => {
        if (settled()) {
          // Ended (deadline, abort) while waiting for a slot.
          releaseSlot();
          return;
        }
        slot = true;
        start();
      });
    },
  }).then(({ outcome }) => outcome);
}
