import { KsadkError } from '../errors/ksadk-error.js';

/** A lock untouched for this long belongs to a dead process and is taken over. */
export const FILE_LOCK_STALE_MS = 10_000;

/**
 * How long a writer waits for the lock before it gives up: about 20–40 s of randomised backoff
 * (10 ms growing to 200 ms), longer than {@link FILE_LOCK_STALE_MS} so the lock of a crashed
 * process is always taken over in time.
 */
const RETRIES = { retries: 120, factor: 1.25, minTimeout: 10, maxTimeout: 200, randomize: true };

/**
 * Runs `work` while holding the cross-process lock of one file: the directory `<file>.lock`
 * (`proper-lockfile`, loaded on first use so importing stays cheap). The file need not exist and
 * may be replaced under the lock without changing it. `work` receives `held()`, false once the
 * lock was lost (taken over as stale after the process stalled for {@link FILE_LOCK_STALE_MS}); a
 * writer checks it before any step that must not run unlocked.
 *
 * @throws {KsadkError} `internal` with `busyMessage` when the lock stays busy for the whole retry window.
 *
 * @example
 * ```ts
 * await withFileLock(file, 'The store is busy; try again later.', async (held) => {
 *   if (!held()) throw new Error('lock lost');
 * });
 * ```
 */
export async function withFileLock<T>(
  file: string,
  busyMessage: string,
  work: (held: () => boolean) => Promise<T>,
): Promise<T> {
  const { lock } = await import('proper-lockfile');
  let compromised = false;
  let release: () => Promise<void>;
  try {
    release = await lock(file, {
      lockfilePath: `${file}.lock`,
      realpath: false,
      stale: FILE_LOCK_STALE_MS,
      update: FILE_LOCK_STALE_MS / 4,
      retries: RETRIES,
      // The default throws from a timer and would crash the process.
      onCompromised: () => {
        compromised = true;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED')
      throw new KsadkError('internal', busyMessage, { cause: error });
    throw error;
  }
  try {
    return await work(() => !compromised);
  } finally {
    await release().catch(() => undefined);
  }
}
