import type { ResourceLimits, Worker } from 'node:worker_threads';

/**
 * The one way core starts a worker thread for work that must not stall the event loop (HTML
 * conversion, the in-process search): the thread runs a script made from functions' own source,
 * and its deadline, abort and end are handled by {@link settleOnce}.
 */

/**
 * A worker script from functions' own source: `helpers` become constants of those names, then
 * `main` is called with `call` (an argument list over `workerData`, `parentPort`, `require` and
 * the helpers). Transpilers that keep function names (esbuild's `keepNames`, which tsx uses) wrap
 * inner functions in a `__name` helper defined outside the function: the script defines a
 * stand-in.
 */
export function workerScript(
  main: (...args: never[]) => unknown,
  call: string,
  helpers: Readonly<Record<string, (...args: never[]) => unknown>> = {},
): string {
  return [
    "const { parentPort, workerData } = require('node:worker_threads');",
    'const __name = (target) => target;',
    ...Object.entries(helpers).map(([name, helper]) => `const ${name} = (${helper.toString()});`),
    `(${main.toString()})(${call});`,
  ].join('\n');
}

/**
 * Starts a thread on `script` with its own heap limit. Whatever it prints is dropped, not
 * buffered for its whole life; an error (out of memory, a crash) is always followed by `exit`,
 * which callers watch.
 */
export async function startWorker(
  script: string,
  workerData: unknown,
  resourceLimits: ResourceLimits,
): Promise<Worker> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(script, {
    eval: true,
    workerData,
    resourceLimits,
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  worker.on('error', () => undefined);
  return worker;
}

/** Why a bounded task stopped before it finished. */
export type StopCause = 'deadline' | 'aborted';

/**
 * A promise that settles once: with what `run` finishes with, or with `stopped(cause)` at the
 * deadline or when `signal` aborts. `cleanup` runs exactly once, with the value it settled with,
 * before the promise resolves (terminate threads there). Never rejects.
 */
export function settleOnce<T>(options: {
  readonly deadlineMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly stopped: (cause: StopCause) => T;
  readonly run: (finish: (value: T) => void, settled: () => boolean) => void;
  readonly cleanup: (value: T) => void;
}): Promise<T> {
  const { deadlineMs, signal, stopped, run, cleanup } = options;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: T): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      try {
        cleanup(value);
      } finally {
        resolve(value);
      }
    };
    const onAbort = (): void => finish(stopped('aborted'));
    const timer = setTimeout(() => finish(stopped('deadline')), deadlineMs);
    if (signal?.aborted) {
      finish(stopped('aborted'));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    run(finish, () => settled);
  });
}
