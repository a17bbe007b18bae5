import {
  close,
  closeSync,
  constants,
  existsSync,
  fstat,
  fstatSync,
  open,
  openSync,
  read,
  readlink,
  readlinkSync,
  readSync,
} from 'node:fs';
import { isReserved } from '../util/reserved-dirs.js';
import { forgetLocalRoot, localRootDevice } from './local-roots.js';
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

/**
 * Largest file read synchronously on a local file system: a read from the page cache costs a few
 * microseconds, one from a cold disk at most this much I/O; larger files go through the thread pool.
 */
const MAX_SYNC_BYTES = 256 * 1024;

/** What a synchronous attempt found: the read, a refusal for the careful path, or "ask the pool". */
const BY_POOL = Symbol('by the thread pool');

/** Whether the fast path may run at all (Linux); whether it can check paths of several segments. */
function canCheck(segments: number, fdDir: string): boolean {
  if (FLAGS === 0) return false;
  if (segments === 1) return true;
  return fdDir === FD_DIR ? hasProcFd() : existsSync(fdDir);
}

/**
 * Reads the regular file `relative` (a normalised workspace path, `/`-separated, never `.` or
 * `..`) below `root` (a real path) the short way, on Linux: one `open` of the joined path with
 * `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`; then `fstat` of what was opened and, for a path of several
 * segments, the link `/proc/self/fd/<fd>` (the real path of what was opened); then one read, made
 * only once `fstat` said a regular file within `maxBytes`. The file is kept only when what was
 * opened is exactly `root/relative` — no part of the path a symbolic link, checked on the open file
 * itself, so no swap between a check and the open can move it (for one segment `O_NOFOLLOW` is
 * that check: the root is a real path) — and outside every private folder (never opened at all).
 * Anything else — a missing file, a link anywhere on the way, a FIFO (opened without blocking,
 * never read) or a device, a file over the cap or larger than `fstat` said, no `/proc`, another
 * platform — gives `undefined`, and the caller takes the careful path, which says why.
 *
 * Under a root on a local file system with nothing mounted below it (see `localRootDevice`), a
 * file of up to 256 KiB is read with these system calls made synchronously — microseconds each,
 * where each thread-pool round trip costs tens — else in three round trips through the thread
 * pool (`fstat` and the real path side by side; the close not waited for).
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
  const device = localRootDevice(root);
  if (device !== undefined) {
    const now = readNow(root, absolute, segments, maxBytes, device, fdDir);
    if (now !== BY_POOL) return Promise.resolve(now);
  }
  return readByPool(absolute, segments, maxBytes, fdDir);
}

/**
 * {@link readDirectly} without a thread-pool round trip, for a root on a local file system with
 * nothing mounted below it (see `localRootDevice`): the same checks, made synchronously — the
 * same `open`, `fstat`, real path and single read, each a system call of microseconds there.
 * A file on another device (something was mounted below the root since it was looked at) or
 * larger than {@link MAX_SYNC_BYTES} is left to the thread pool.
 */
function readNow(
  root: string,
  absolute: string,
  segments: number,
  maxBytes: number,
  device: bigint,
  fdDir: string,
): DirectRead | undefined | typeof BY_POOL {
  let fd: number;
  try {
    fd = openSync(absolute, FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (stats.dev !== device) {
      forgetLocalRoot(root);
      return BY_POOL;
    }
    if (!stats.isFile() || stats.size > BigInt(maxBytes)) return undefined;
    if (stats.size > BigInt(MAX_SYNC_BYTES)) return BY_POOL;
    if (segments > 1) {
      let real: string;
      try {
        real = readlinkSync(`${fdDir}/${fd}`);
      } catch {
        if (fdDir === FD_DIR) forgetProcFd();
        return undefined;
      }
      if (real !== absolute) return undefined;
    }
    const size = Number(stats.size);
    // One byte more than `fstat` said: a file that grew since is noticed (and read carefully).
    const buffer = Buffer.allocUnsafe(size + 1);
    const bytesRead = readSync(fd, buffer, 0, size + 1, 0);
    if (bytesRead > size) return undefined;
    return { bytes: buffer.subarray(0, bytesRead), sizeBytes: bytesRead, mtimeNs: stats.mtimeNs };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** {@link readDirectly} through the thread pool: three round trips, the close not waited for. */
function readByPool(
  absolute: string,
  segments: number,
  maxBytes: number,
  fdDir: string,
): Promise<DirectRead | undefined> {
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
