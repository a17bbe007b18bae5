import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Entry, ZipFile } from 'yauzl';
import { SkillServiceError } from './skill-service-error.js';

/** Caps on what one skill archive may hold. */
export interface ArchiveLimits {
  /** Most entries (files and directories). @default 5000 */
  maxEntries: number;
  /** Most uncompressed bytes in all. @default 100 MiB */
  maxTotalBytes: number;
  /** Highest uncompressed:compressed ratio of one entry. @default 100 */
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

const openZip = async (file: string): Promise<ZipFile> => {
  const yauzl = await import('yauzl');
  return new Promise((resolve, reject) => {
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
      (error, zip) =>
        error || !zip
          ? reject(unsafe(`not a readable zip archive: ${error?.message ?? 'empty'}`))
          : resolve(zip),
    );
  });
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
    const files: ExtractedFile[] = [];
    for (const item of plan) {
      const target = path.join(dest, ...item.name.split('/'));
      if (item.directory) {
        await mkdir(target, { recursive: true, mode: 0o755 });
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
      const stream = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(item.entry, (error, readable) =>
          error || !readable
            ? reject(unsafe(`entry ${item.name} cannot be read`))
            : resolve(readable),
        ),
      );
      files.push(await writeEntry(stream, target, item.name, item.executable));
    }
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

function planEntries(entries: Entry[], limits: ArchiveLimits): PlannedEntry[] {
  const seen = new Set<string>();
  let total = 0;
  const plan: PlannedEntry[] = [];
  for (const entry of entries) {
    const { name, directory } = entryName(entry);
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
      const ratio =
        entry.compressedSize === 0
          ? entry.uncompressedSize === 0
            ? 0
            : Infinity
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

async function writeEntry(
  stream: Readable,
  target: string,
  name: string,
  executable: boolean,
): Promise<ExtractedFile> {
  const handle = await open(target, WRITE_FLAGS, executable ? 0o755 : 0o644).catch(() => {
    stream.destroy();
    throw unsafe(`entry ${JSON.stringify(name.slice(0, 120))} cannot be created`);
  });
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      hash.update(buffer);
      size += buffer.byteLength;
      await handle.write(buffer);
    }
  } catch (error) {
    throw unsafe(
      `entry ${JSON.stringify(name.slice(0, 120))} is corrupt: ${(error as Error).message}`,
    );
  } finally {
    await handle.close();
  }
  return { path: name, size, sha256: hash.digest('hex') };
}
