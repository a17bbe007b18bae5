import { splitLines } from '../text-lines.js';
import { type SearchHit, searchHit } from './search-hit.js';
import {
  runSearchWorker,
  type SearchWorkerData,
  type SearchWorkerMessage,
} from './search-worker-main.js';

/** What the in-process search found. */
export interface BuiltinSearchOutcome {
  readonly hits: SearchHit[];
  /** Stopped at the deadline or by the caller's signal: `hits` is what was found until then. */
  readonly timedOut: boolean;
}

/** Options for {@link runBuiltinSearch}. */
export interface BuiltinSearchOptions extends Omit<SearchWorkerData, 're2Path'> {
  /** Wall-clock limit; the worker is terminated at it. */
  readonly deadlineMs: number;
  readonly signal?: AbortSignal | undefined;
}

let workerSource: string | undefined;
let re2Path: Promise<string> | undefined;

/** The worker's script: the worker body and the two helpers it needs, by their own source. */
function sourceOfWorker(): string {
  workerSource ??= [
    "const { parentPort, workerData } = require('node:worker_threads');",
    `const splitLines = (${splitLines.toString()});`,
    `const searchHit = (${searchHit.toString()});`,
    `(${runSearchWorker.toString()})(workerData, (message) => parentPort.postMessage(message), splitLines, searchHit, require);`,
  ].join('\n');
  return workerSource;
}

async function resolveRe2(): Promise<string> {
  re2Path ??= import('node:module').then(({ createRequire }) =>
    createRequire(import.meta.url).resolve('re2js'),
  );
  return re2Path;
}

/**
 * Runs the in-process (RE2) search on a worker thread, so no pattern, however slow on however
 * long a line, can stall the event loop: at the deadline or on abort the worker is terminated and
 * the hits found so far come back with `timedOut`. Never rejects for a hostile file or pattern.
 */
export async function runBuiltinSearch(
  options: BuiltinSearchOptions,
): Promise<BuiltinSearchOutcome> {
  const { deadlineMs, signal, ...data } = options;
  if (data.files.length === 0) return { hits: [], timedOut: false };
  const [{ Worker }, path] = await Promise.all([import('node:worker_threads'), resolveRe2()]);
  const hits: SearchHit[] = [];
  if (signal?.aborted) return { hits, timedOut: true };
  const worker = new Worker(sourceOfWorker(), {
    eval: true,
    workerData: { ...data, re2Path: path } satisfies SearchWorkerData,
    // Only what the search needs: a small heap, no stdin, its own streams ignored.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
    stdout: true,
    stderr: true,
  });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (timedOut: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve({ hits, timedOut });
    };
    const onAbort = (): void => finish(true);
    const timer = setTimeout(() => finish(true), deadlineMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: SearchWorkerMessage) => {
      if ('hits' in message) hits.push(...message.hits);
      else finish(false);
    });
    // A worker that dies before `done` (out of memory, a crash) ends the search with what it
    // found, marked incomplete.
    worker.once('error', () => finish(true));
    worker.once('exit', () => finish(true));
  });
}
