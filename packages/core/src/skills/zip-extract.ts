import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { SkillServiceError } from './skill-service-error.js';

/** Caps on what one skill archive may hold. */
export interface ArchiveLimits {
  /** Most entries (files and directories). @default 5000 */
  maxEntries: number;
  /** Most uncompressed bytes in all. @default 100 MiB */
  maxTotalBytes: number;
  /** Highest uncompressed:compressed ratio of one entry of 1 MiB or more. @default 100 */
  maxRatio: number;
}

/** The default {@link ArchiveLimits}: 5,000 entries, 100 MiB uncompressed, 100:1 per entry. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 5000,
  maxTotalBytes: 100 * 1024 * 1024,
  maxRatio: 100,
};

/** One extracted file: its archive-relative path, size and SHA-256. */
export interface ExtractedFile {
  path: string;
  size: number;
  sha256: string;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const MADE_BY_UNIX = 3;
const MAX_NAME = 1024;
const MAX_SEGMENT_BYTES = 255;
// Entries are only ever created new, and never through a link.
const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

const unsafe = (message: string): SkillServiceError =>
  new SkillServiceError('unsafe_archive', message);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The entry's name, checked: relative, no `..`, no backslash, no NUL, bounded. */
function entryName(entry: Entry): { name: string; directory: boolean } {
  let name: string;
  try {
    name = utf8.decode(entry.fileNameRaw ?? Buffer.from(entry.fileName));
  } catch {
    throw unsafe('an entry name is not UTF-8');
  }
  const shown = JSON.stringify(name.slice(0, 120));
  if (name.length === 0 || name.length > MAX_NAME)
    throw unsafe(`entry ${shown} has an unusable name length`);
  if (name.includes('\0')) throw unsafe(`entry ${shown} contains NUL`);
  if (name.includes('\\')) throw unsafe(`entry ${shown} contains a backslash`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name))
    throw unsafe(`entry ${shown} is an absolute path`);
  const directory = name.endsWith('/');
  const segments = (directory ? name.slice(0, -1) : name).split('/');
  for (const segment of segments) {
    if (segment === '..') throw unsafe(`entry ${shown} leaves the archive (..)`);
    if (segment === '' || segment === '.')
      throw unsafe(`entry ${shown} has an empty or "." segment`);
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES)
      throw unsafe(`entry ${shown} has a segment over 255 bytes`);
  }
  return { name: segments.join('/'), directory };
}

/** Refuses symlinks, devices, FIFOs, sockets and unknown types (zip has no safe link entries). */
function checkType(entry: Entry, name: string, directory: boolean): void {
  if (entry.versionMadeBy >> 8 !== MADE_BY_UNIX) return;
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (mode === 0) return;
  if (mode === S_IFDIR && directory) return;
  if (mode === S_IFREG && !directory) return;
  const kind =
    mode === 0o120000
      ? 'a symlink'
      : mode === S_IFDIR || mode === S_IFREG
        ? 'mislabelled'
        : 'a link, device or special file';
  throw unsafe(`entry ${JSON.stringify(name.slice(0, 120))} is ${kind}`);
}

/** Archives up to this size are read into memory (one read instead of two per entry). */
const IN_MEMORY_ARCHIVE_BYTES = 128 * 1024 * 1024;

const openZip = async (file: string): Promise<ZipFile> => {
  const yauzl = await import('yauzl');
  const options = {
    lazyEntries: true,
    autoClose: false,
    decodeStrings: false,
    validateEntrySizes: true,
  } as const;
  const done =
    (resolve: (zip: ZipFile) => void, reject: (error: unknown) => void) =>
    (error: Error | null, zip?: ZipFile) =>
      error || !zip
        ? reject(unsafe(`not a readable zip archive: ${error?.message ?? 'empty'}`))
        : resolve(zip);
  const { size } = await stat(file);
  if (size <= IN_MEMORY_ARCHIVE_BYTES) {
    const bytes = await readFile(file);
    return new Promise((resolve, reject) =>
      yauzl.fromBuffer(bytes, options, done(resolve, reject)),
    );
  }
  return new Promise((resolve, reject) => yauzl.open(file, options, done(resolve, reject)));
};

/**
 * Extracts a skill archive into `dest` (which must be a new, empty directory) with every entry
 * checked before anything is written: absolute names, `..`, backslashes, NUL, symlinks, devices
 * and other special entries, duplicate names (also differing only in case), more than
 * `maxEntries`, a declared uncompressed total over `maxTotalBytes`, and an entry compressed more
 * than `maxRatio`:1 are refused. While writing, real sizes are held to the declared ones (yauzl)
 * and files are created new, never through a link. Returns every file with its SHA-256.
 */
export async function extractSkillArchive(
  archive: string,
  dest: string,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<ExtractedFile[]> {
  const zip = await openZip(archive);
  try {
    if (zip.entryCount > limits.maxEntries)
      throw unsafe(`the archive has ${zip.entryCount} entries (limit ${limits.maxEntries})`);
    const entries = await readEntries(zip);
    const plan = planEntries(entries, limits);
    // Every folder first (each once), then the files, several at a time: the archive is read by
    // offset, so entries can stream side by side.
    const folders = new Set<string>();
    for (const item of plan) {
      const target = path.join(dest, ...item.name.split('/'));
      folders.add(item.directory ? target : path.dirname(target));
    }
    for (const folder of [...folders].sort()) await mkdir(folder, { recursive: true, mode: 0o755 });
    const plannedFiles = plan.filter((item) => !item.directory);
    const files: ExtractedFile[] = new Array(plannedFiles.length);
    let next = 0;
    let failed = false;
    const worker = async (): Promise<void> => {
      while (!failed && next < plannedFiles.length) {
        const index = next++;
        const item = plannedFiles[index]!;
        const small = isSmall(item.entry);
        const stream = await new Promise<Readable>((resolve, reject) =>
          // Raw bytes for a small deflated entry (inflated in one step below); a stored entry is
          // raw already, and yauzl refuses the `decompress` option for it.
          zip.openReadStream(
            item.entry,
            small && item.entry.compressionMethod === 8 ? { decompress: false } : {},
            (error, readable) =>
              error || !readable
                ? reject(unsafe(`entry ${item.name} cannot be read`))
                : resolve(readable),
          ),
        );
        const target = path.join(dest, ...item.name.split('/'));
        try {
          files[index] = small
            ? await writeSmallEntry(stream, item.entry, target, item.name, item.executable)
            : await writeEntry(stream, target, item.name, item.executable);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    // Every writer has stopped before this returns or throws: nothing is written afterwards.
    const outcomes = await Promise.allSettled(Array.from({ length: EXTRACT_CONCURRENCY }, worker));
    const rejected = outcomes.find((outcome) => outcome.status === 'rejected');
    if (rejected) throw (rejected as PromiseRejectedResult).reason;
    return files;
  } finally {
    zip.close();
  }
}

async function readEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', (error: Error) =>
      reject(unsafe(`the archive is malformed: ${error.message}`)),
    );
    zip.readEntry();
  });
}

interface PlannedEntry {
  entry: Entry;
  name: string;
  directory: boolean;
  executable: boolean;
}

/**
 * Entries macOS adds to the archives it makes (`__MACOSX/` resource forks, `.DS_Store` folder
 * settings): not part of any skill, never extracted.
 */
export function isMacOsJunk(name: string): boolean {
  return name === '__MACOSX' || name.startsWith('__MACOSX/') || /(^|\/)\.DS_Store$/.test(name);
}

/** An entry is held to the compression ratio only from this size: smaller ones cannot matter. */
export const RATIO_MIN_BYTES = 1024 * 1024;

function planEntries(entries: Entry[], limits: ArchiveLimits): PlannedEntry[] {
  const seen = new Set<string>();
  let total = 0;
  const plan: PlannedEntry[] = [];
  for (const entry of entries) {
    const { name, directory } = entryName(entry);
    if (isMacOsJunk(name)) continue;
    checkType(entry, name, directory);
    const key = name.toLowerCase().normalize('NFC');
    if (seen.has(key)) throw unsafe(`entry ${JSON.stringify(name.slice(0, 120))} appears twice`);
    seen.add(key);
    if (entry.isEncrypted())
      throw unsafe(`entry ${JSON.stringify(name.slice(0, 120))} is encrypted`);
    if (!directory) {
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes)
        throw unsafe(`the archive unpacks to more than ${limits.maxTotalBytes} bytes`);
      // The bomb defence is the total cap (sizes are held to the declared ones while writing);
      // the ratio rule is for entries large enough to matter — a 64 KB CSV of zeros is fine.
      const ratio =
        entry.uncompressedSize < RATIO_MIN_BYTES
          ? 0
          : entry.compressedSize === 0
            ? Infinity
            : entry.uncompressedSize / entry.compressedSize;
      if (ratio > limits.maxRatio)
        throw unsafe(
          `entry ${JSON.stringify(name.slice(0, 120))} is compressed more than ${limits.maxRatio}:1`,
        );
    }
    const mode = (entry.externalFileAttributes >>> 16) & 0o777;
    plan.push({ entry, name, directory, executable: (mode & 0o100) !== 0 });
  }
  // A file and a directory of the same path, or a file used as a parent, is refused up front.
  const files = new Set(
    plan.filter((item) => !item.directory).map((item) => item.name.toLowerCase()),
  );
  for (const item of plan) {
    const parts = item.name.toLowerCase().split('/');
    for (let index = 1; index < parts.length; index += 1)
      if (files.has(parts.slice(0, index).join('/')))
        throw unsafe(`entry ${JSON.stringify(item.name.slice(0, 120))} is inside a file`);
  }
  return plan;
}

/** Entries extracted side by side. */
const EXTRACT_CONCURRENCY = 8;

/** Entries up to this size are written with one synchronous open/write/close (tens of µs). */
const SMALL_FILE_BYTES = 256 * 1024;

/** Stored or deflated entries small enough to inflate and write in one synchronous step. */
const isSmall = (entry: Entry): boolean =>
  (entry.compressionMethod === 0 || entry.compressionMethod === 8) &&
  entry.uncompressedSize <= SMALL_FILE_BYTES &&
  entry.compressedSize <= SMALL_FILE_BYTES + 1024;

/**
 * A small entry: its raw bytes are read (at most the declared compressed size), inflated in one
 * synchronous call capped at the declared size, held to that size exactly, hashed and written
 * new with one synchronous open/write/close. A zlib stream and three thread-pool round trips per
 * file made extraction several times slower than `unzip`; this holds the event loop for tens of
 * microseconds per file.
 */
async function writeSmallEntry(
  stream: Readable,
  entry: Entry,
  target: string,
  name: string,
  executable: boolean,
): Promise<ExtractedFile> {
  const shown = JSON.stringify(name.slice(0, 120));
  const chunks: Buffer[] = [];
  let read = 0;
  try {
    for await (const chunk of stream) {
      read += (chunk as Buffer).byteLength;
      if (read > entry.compressedSize) throw new Error('longer than declared');
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    stream.destroy();
    throw unsafe(`entry ${shown} is corrupt: ${(error as Error).message}`);
  }
  const raw = Buffer.concat(chunks, read);
  let data: Buffer;
  try {
    data =
      entry.compressionMethod === 0
        ? raw
        : inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch (error) {
    throw unsafe(`entry ${shown} is corrupt: ${(error as Error).message}`);
  }
  if (data.byteLength !== entry.uncompressedSize)
    throw unsafe(`entry ${shown} is corrupt: its size differs from the declared one`);
  let fd: number;
  try {
    fd = openSync(target, WRITE_FLAGS, executable ? 0o755 : 0o644);
  } catch {
    throw unsafe(`entry ${shown} cannot be created`);
  }
  try {
    if (data.byteLength > 0) writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
  return {
    path: name,
    size: data.byteLength,
    sha256: createHash('sha256').update(data).digest('hex'),
  };
}

/**
 * Writes one entry, created new (`O_EXCL | O_NOFOLLOW`). Small files — most of a skill — are
 * gathered in memory and written synchronously in one step: three thread-pool round trips per
 * file made extraction several times slower than `unzip`, while one small synchronous write
 * holds the event loop for microseconds. Larger files stream through an async handle.
 */
async function writeEntry(
  stream: Readable,
  target: string,
  name: string,
  executable: boolean,
): Promise<ExtractedFile> {
  const mode = executable ? 0o755 : 0o644;
  const cannotCreate = () =>
    unsafe(`entry ${JSON.stringify(name.slice(0, 120))} cannot be created`);
  const corrupt = (error: unknown) =>
    unsafe(`entry ${JSON.stringify(name.slice(0, 120))} is corrupt: ${(error as Error).message}`);
  const hash = createHash('sha256');
  let size = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  const take = (): Buffer => {
    const buffer = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return buffer;
  };
  try {
    try {
      for await (const chunk of stream) {
        const buffer = chunk as Buffer;
        hash.update(buffer);
        size += buffer.byteLength;
        pending.push(buffer);
        pendingBytes += buffer.byteLength;
        if (pendingBytes >= SMALL_FILE_BYTES) {
          handle ??= await open(target, WRITE_FLAGS, mode).catch(() => {
            throw cannotCreate();
          });
          await handle.write(take());
        }
      }
    } catch (error) {
      stream.destroy();
      throw error instanceof SkillServiceError ? error : corrupt(error);
    }
    if (handle) {
      if (pendingBytes > 0) await handle.write(take());
    } else {
      let fd: number;
      try {
        fd = openSync(target, WRITE_FLAGS, mode);
      } catch {
        throw cannotCreate();
      }
      try {
        if (pendingBytes > 0) writeSync(fd, take());
      } finally {
        closeSync(fd);
      }
    }
  } finally {
    await handle?.close();
  }
  return { path: name, size, sha256: hash.digest('hex') };
}
