import { settleOnce, startWorker, workerScript } from '../../util/eval-worker.js';
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

/** Threads one search uses at most, and the fewest files worth a thread of their own. */
const MAX_THREADS = 4;
const FILES_PER_THREAD = 2_000;

let workerSource: string | undefined;
let re2Path: Promise<string> | undefined;

/** The worker's script: the worker body and the two helpers it needs, by their own source. */
function sourceOfWorker(): string {
  workerSource ??= workerScript(
    runSearchWorker,
    'workerData, (message) => parentPort.postMessage(message), splitLines, searchHit, require',
    { splitLines, searchHit },
  );
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
  if (signal?.aborted) return { hits: [], timedOut: true };
  const [{ availableParallelism }, path] = await Promise.all([import('node:os'), resolveRe2()]);
  // Contiguous slices of the (path-ordered) candidates, one per thread, merged back in order.
  const threads = Math.max(
    1,
    Math.min(availableParallelism(), MAX_THREADS, Math.ceil(data.files.length / FILES_PER_THREAD)),
  );
  const size = Math.ceil(data.files.length / threads);
  const slices = Array.from({ length: threads }, (_, index) =>
    data.files.slice(index * size, (index + 1) * size),
  );
  const found: SearchHit[][] = slices.map(() => []);
  const workers = await Promise.all(
    slices.map((files) =>
      startWorker(sourceOfWorker(), { ...data, files, re2Path: path } satisfies SearchWorkerData, {
        maxOldGenerationSizeMb: 512,
      }),
    ),
  );
  return settleOnce<BuiltinSearchOutcome>({
    deadlineMs,
    signal,
    stopped: () => ({ hits: found.flat(), timedOut: true }),
    cleanup: () => {
      for (const worker of workers) void worker.terminate();
    },
    run: (finish) => {
      let pending = workers.length;
      const incomplete = () => finish({ hits: found.flat(), timedOut: true });
      workers.forEach((worker, index) => {
        let done = false;
        worker.on('message', (message: SearchWorkerMessage) => {
          if ('hits' in message) found[index]!.push(...message.hits);
          else if ('done' in message) {
            done = true;
            pending -= 1;
            if (pending === 0) finish({ hits: found.flat(), timedOut: false });
          }
        });
        // A thread that dies before `done` (out of memory, a crash) ends the search with what was
        // found, marked incomplete.
        worker.once('exit', () => {
          if (!done) incomplete();
        });
      });
    },
  });
}
