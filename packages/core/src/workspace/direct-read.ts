import { close, constants, existsSync, fstat, open, read, readlink } from 'node:fs';
import { isReserved } from '../util/reserved-dirs.js';
import { FD_DIR, forgetProcFd, hasProcFd } from './opened-path.js';

/** A file read by {@link readDirectly}: its bytes and `fstat`'s size and modification time. */
interface DirectRead {
  readonly bytes: Buffer;
  readonly sizeBytes: number;
  readonly mtimeNs: bigint;
}

const FLAGS =
  process.platform === 'linux'
    ? constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY
    : 0;
const closeQuietly = (fd: number): void => close(fd, ignore);
const ignore = (): void => undefined;

/** Whether the fast path may run at all (Linux); whether it can check paths of several segments. */
function canCheck(segments: number, fdDir: string): boolean {
  if (FLAGS === 0) return false;
  if (segments === 1) return true;
  return fdDir === FD_DIR ? hasProcFd() : existsSync(fdDir);
}

/**
 * Reads the regular file `relative` (a normalised workspace path, `/`-separated, never `.` or
 * `..`) below `root` (a real path) the short way, on Linux, in three thread-pool round trips: one
 * `open` of the joined path with `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`; then `fstat` of what was
 * opened and, for a path of several segments, the link `/proc/self/fd/<fd>` (the real path of what
 * was opened), side by side; then one read, made only once `fstat` said a regular file within
 * `maxBytes`. The file is kept only when what was opened is exactly `root/relative` — no part of
 * the path a symbolic link, checked on the open file itself, so no swap between a check and the
 * open can move it (for one segment `O_NOFOLLOW` is that check: the root is a real path) — and
 * outside every private folder (never opened at all). Anything else — a missing file, a link
 * anywhere on the way, a FIFO (opened without blocking, never read) or a device, a file over the
 * cap or larger than `fstat` said, no `/proc`, another platform — gives `undefined`, and the caller
 * takes the careful path, which says why. The file is closed without waiting for it.
 */
export function readDirectly(
  root: string,
  relative: string,
  maxBytes: number,
  /** Where the open files' links are (tests point it elsewhere). */
  fdDir: string = FD_DIR,
): Promise<DirectRead | undefined> {
  const segments = relative.split('/').length;
  if (!canCheck(segments, fdDir)) return Promise.resolve(undefined);
  const absolute = `${root}${root.endsWith('/') ? '' : '/'}${relative}`;
  // Private folders are never opened, not even to be refused.
  if (isReserved(absolute)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    open(absolute, FLAGS, (openError, fd) => {
      if (openError) return resolve(undefined);
      let pending = segments === 1 ? 1 : 2;
      let failed = false;
      let size = -1;
      let mtimeNs = 0n;
      const settle = (): void => {
        pending -= 1;
        if (pending > 0) return;
        if (failed || size < 0 || size > maxBytes) {
          closeQuietly(fd);
          resolve(undefined);
          return;
        }
        // One byte more than `fstat` said: a file that grew since is noticed (and read carefully).
        const buffer = Buffer.allocUnsafe(size + 1);
        read(fd, buffer, 0, size + 1, 0, (readError, bytesRead) => {
          closeQuietly(fd);
          if (readError || bytesRead > size) return resolve(undefined);
          resolve({ bytes: buffer.subarray(0, bytesRead), sizeBytes: bytesRead, mtimeNs });
        });
      };
      fstat(fd, { bigint: true }, (statError, stats) => {
        if (statError || !stats.isFile()) failed = true;
        else {
          size = Number(stats.size);
          mtimeNs = stats.mtimeNs;
        }
        settle();
      });
      if (segments > 1) {
        readlink(`${fdDir}/${fd}`, (linkError, real) => {
          if (linkError) {
            if (fdDir === FD_DIR) forgetProcFd();
            failed = true;
          } else if (real !== absolute) failed = true;
          settle();
        });
      }
    });
  });
}
