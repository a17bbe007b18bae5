import { withFileLock } from '../util/file-lock.js';

/**
 * Runs `work` while holding the cross-process lock of one memory file (`<file>.lock`, see
 * {@link withFileLock}). The target is the scope's file path itself, which need not exist yet and
 * is replaced by compaction without changing the lock. `work` receives `held()`, false once the
 * lock was lost; a writer checks it before any step that must not run unlocked.
 *
 * @throws {KsadkError} `internal` when the lock stays busy for the whole retry window.
 *
 * @example
 * ```ts
 * await withMemoryFileLock(file, async (held) => {
 *   if (!held()) throw new Error('lock lost');
 * });
 * ```
 */
export function withMemoryFileLock<T>(
  file: string,
  work: (held: () => boolean) => Promise<T>,
): Promise<T> {
  return withFileLock(
    file,
    'The memory store is busy (another process holds its lock); try again later.',
    work,
  );
}
