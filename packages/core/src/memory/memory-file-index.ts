import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { type IndexedMemory, indexMemory } from './memory-ranking.js';
import { parseMemoryRecord } from './memory-record.js';
import { createTimeSlice } from './yield-to-event-loop.js';

const NEWLINE = 0x0a;

/** What is known of one memory file as it was last read or written. */
export interface MemoryFileSnapshot {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Bytes parsed: up to and including the last newline seen. */
  readonly parsedBytes: number;
  /** The last parsed line with its newline: the same bytes at the same offset mean the same file. */
  readonly tail: Buffer;
  /** The valid records of the parsed bytes, oldest first. */
  readonly entries: readonly IndexedMemory[];
}

/** Parsed, indexed memory files, kept between searches. */
export interface MemoryFileIndex {
  /**
   * The valid records of `file`, oldest first (none when it does not exist). A file unchanged
   * since the last read costs one `fstat`; one that only grew costs parsing the new lines; any
   * other file (compacted by another process, say) is read whole. Lines that are not records are
   * skipped, an unfinished last line is left for the next read. Needs no lock.
   */
  read(file: string, signal?: AbortSignal): Promise<readonly IndexedMemory[]>;
  /** Records the state of a file this process has just written whole. */
  remember(file: string, snapshot: MemoryFileSnapshot): void;
}

/**
 * A {@link MemoryFileIndex} that keeps the most recently used files while their sizes add up to
 * at most `maxCachedBytes` (the file in use is always kept).
 *
 * @example
 * ```ts
 * const index = createMemoryFileIndex();
 * const entries = await index.read('/data/memory/acme/ann.jsonl');
 * ```
 */
export function createMemoryFileIndex(options: { maxCachedBytes?: number } = {}): MemoryFileIndex {
  const maxCachedBytes = options.maxCachedBytes ?? 64 * 1024 * 1024;
  const cache = new Map<string, MemoryFileSnapshot>();

  const store = (file: string, snapshot: MemoryFileSnapshot): void => {
    cache.delete(file);
    cache.set(file, snapshot);
    let total = 0;
    for (const cached of cache.values()) total += cached.parsedBytes;
    for (const [key, cached] of cache) {
      if (total <= maxCachedBytes || key === file) break;
      cache.delete(key);
      total -= cached.parsedBytes;
    }
  };

  const read = async (file: string, signal?: AbortSignal): Promise<readonly IndexedMemory[]> => {
    signal?.throwIfAborted();
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        cache.delete(file);
        return [];
      }
      throw error;
    }
    try {
      const stat = await handle.stat();
      const cached = cache.get(file);
      const sameFile =
        cached !== undefined &&
        cached.dev === stat.dev &&
        cached.ino === stat.ino &&
        stat.size >= cached.parsedBytes;
      if (sameFile && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) {
        store(file, cached);
        return cached.entries;
      }
      const from = sameFile && (await endsWith(handle, cached)) ? cached.parsedBytes : 0;
      const bytes = await readRange(handle, from, stat.size);
      const parsed = await parseLines(bytes, signal);
      const base = from > 0 ? cached! : undefined;
      const snapshot: MemoryFileSnapshot = {
        dev: stat.dev,
        ino: stat.ino,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        parsedBytes: from + parsed.consumed,
        tail: parsed.tail ?? base?.tail ?? Buffer.alloc(0),
        entries:
          base && parsed.entries.length === 0
            ? base.entries
            : [...(base?.entries ?? []), ...parsed.entries],
      };
      // A concurrent read or write may have stored a newer state meanwhile: keep that one.
      if (cache.get(file) === cached) store(file, snapshot);
      return snapshot.entries;
    } finally {
      await handle.close();
    }
  };

  return { read, remember: store };
}

/** True when `handle` still holds `snapshot`'s last parsed line where it was. */
async function endsWith(handle: FileHandle, snapshot: MemoryFileSnapshot): Promise<boolean> {
  const length = snapshot.tail.length;
  if (length === 0) return snapshot.parsedBytes === 0;
  const bytes = await readRange(handle, snapshot.parsedBytes - length, snapshot.parsedBytes);
  return bytes.equals(snapshot.tail);
}

async function readRange(handle: FileHandle, from: number, to: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, to - from));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, from + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === buffer.length ? buffer : buffer.subarray(0, filled);
}

/** Parses the complete lines of `bytes`, yielding to the event loop as it goes. */
async function parseLines(
  bytes: Buffer,
  signal: AbortSignal | undefined,
): Promise<{ entries: IndexedMemory[]; consumed: number; tail: Buffer | undefined }> {
  const end = bytes.lastIndexOf(NEWLINE);
  if (end < 0) return { entries: [], consumed: 0, tail: undefined };
  const entries: IndexedMemory[] = [];
  const slice = createTimeSlice(signal);
  let start = 0;
  while (start <= end) {
    if (slice.due()) await slice.next();
    const stop = bytes.indexOf(NEWLINE, start);
    // Decoded line by line: a large file never becomes one huge string.
    const line = bytes.toString('utf8', start, stop);
    if (line.trim()) {
      const record = parseMemoryRecord(line);
      if (record) entries.push(indexMemory(record));
    }
    if (stop === end) {
      // The last line's bytes are copied so the cache does not keep the whole buffer alive.
      return { entries, consumed: end + 1, tail: Buffer.from(bytes.subarray(start, end + 1)) };
    }
    start = stop + 1;
  }
  return { entries, consumed: end + 1, tail: undefined };
}
