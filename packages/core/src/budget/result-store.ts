import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { InvocationContext } from '../context/invocation-context.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { reserveDirectory } from '../util/reserved-dirs.js';
import { safePathSegment } from '../util/safe-segment.js';
import { MEDIA_EXTENSIONS } from './media-extensions.js';

/**
 * Handles of persisted outputs start with this. A handle names a file in the *caller's own*
 * account, user and session folder: the same handle read from another account, user or session finds
 * nothing.
 */
export const RESULT_HANDLE_PREFIX = 'tool-results://';

/** How long persisted outputs are kept, and how many. Oldest go first. */
export interface ResultRetention {
  /** Files kept per session. @default 100 */
  readonly maxFilesPerSession: number;
  /** Bytes kept per session. @default 67108864 (64 MiB) */
  readonly maxBytesPerSession: number;
  /** Age after which a file is removed. @default 86400000 (24 hours) */
  readonly maxAgeMs: number;
}

/** The default {@link ResultRetention}. */
export const DEFAULT_RESULT_RETENTION: ResultRetention = Object.freeze({
  maxFilesPerSession: 100,
  maxBytesPerSession: 64 * 1024 * 1024,
  maxAgeMs: 24 * 60 * 60 * 1000,
});

/** Where persisted outputs live and how long. */
export interface ResultStoreLocation {
  readonly persistDir: string;
  /** False for the default location, where symlinks are refused (see `ResultBudget`). */
  readonly persistDirConfigured?: boolean;
  readonly retention: ResultRetention;
}

const HANDLE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const lastSweep = new Map<string, number>();

/**
 * The folder segments of a caller: account, user, session — injective, so two users of one account
 * (even in one session, or with none) never share a folder.
 */
const callerSegments = (context: InvocationContext): string[] => [
  safePathSegment(context.accountId ?? ''),
  safePathSegment(context.userId ?? ''),
  safePathSegment(context.sessionId ?? ''),
];

/** The caller's own folder: `<persistDir>/<account>/<user>/<session>` with injective segments. */
export function sessionResultDir(persistDir: string, context: InvocationContext): string {
  return path.join(persistDir, ...callerSegments(context));
}

/** A real directory (never a symlink) or `undefined`. */
async function realDirectory(dir: string): Promise<boolean> {
  const stats = await lstat(dir).catch(() => undefined);
  return stats?.isDirectory() === true && !stats.isSymbolicLink();
}

/**
 * The caller's folder, checked: the account, user and session folders must be real directories, never
 * symlinks (a planted `tool-results/_/_ -> ~/.ssh` is refused), created `0700` when `create`.
 * `undefined` when they are not usable.
 */
async function checkedSessionDir(
  location: ResultStoreLocation,
  context: InvocationContext,
  create: boolean,
): Promise<string | undefined> {
  if (create) {
    await mkdir(location.persistDir, { recursive: true, mode: 0o700 });
    reserveDirectory(location.persistDir);
  }
  if (!location.persistDirConfigured) {
    // The default sits in the project folder: a symlink there was planted, not configured.
    const chain = [location.persistDir, path.dirname(location.persistDir)];
    chain.push(path.dirname(chain[1]!));
    for (const dir of chain) if (!(await realDirectory(dir))) return undefined;
  }
  let current = location.persistDir;
  for (const segment of callerSegments(context)) {
    current = path.join(current, segment);
    if (create) {
      await mkdir(current, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST' && error.code !== 'ENOENT') throw error;
      });
    }
    if (!(await realDirectory(current))) return undefined;
  }
  return current;
}

/** Names this store writes: `<stem>.<ext>` with a readable stem. Nothing else is ever removed. */
const OWN_FILE = new RegExp(
  `^[A-Za-z0-9_-][A-Za-z0-9_.-]*\\.(?:txt|json|${MEDIA_EXTENSIONS.join('|')})$`,
);

/** A readable file-name stem from an id and a field (collisions are settled by exclusive creation). */
export function resultStem(id: string, field: string): string {
  const clean = `${id}.${field}`
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[._]+/, '');
  // No trailing dot: `<stem>.<ext>` must never hold `..`, which no handle may contain.
  return clean.slice(0, 120).replace(/\.+$/, '') || 'output';
}

/** Whether a model-supplied path is a persisted-output handle. */
export function isResultHandle(value: string): boolean {
  return value.startsWith(RESULT_HANDLE_PREFIX);
}

async function removeQuietly(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => undefined);
}

/** Applies retention to one session folder; the files in `keep` (just written) always stay. */
async function enforceRetention(
  dir: string,
  keep: ReadonlySet<string>,
  retention: ResultRetention,
): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  const files: { file: string; size: number; mtimeMs: number }[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const stats = await lstat(file).catch(() => undefined);
    if (!stats?.isFile()) continue;
    if (!keep.has(file) && now - stats.mtimeMs > retention.maxAgeMs) await removeQuietly(file);
    else files.push({ file, size: stats.size, mtimeMs: stats.mtimeMs });
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let bytes = files.reduce((sum, entry) => sum + entry.size, 0);
  let count = files.length;
  for (const entry of files) {
    if (count <= retention.maxFilesPerSession && bytes <= retention.maxBytesPerSession) break;
    if (keep.has(entry.file)) continue;
    await removeQuietly(entry.file);
    count -= 1;
    bytes -= entry.size;
  }
}

/**
 * Removes expired files (and emptied folders) of every account and session, at most every 10
 * minutes. It never follows a symlink and only ever removes files with this store's names.
 */
async function sweepExpired(location: ResultStoreLocation): Promise<void> {
  const now = Date.now();
  if (now - (lastSweep.get(location.persistDir) ?? 0) < SWEEP_INTERVAL_MS) return;
  lastSweep.set(location.persistDir, now);
  for (const account of await readdir(location.persistDir).catch(() => [] as string[])) {
    const accountDir = path.join(location.persistDir, account);
    if (!(await realDirectory(accountDir))) continue;
    for (const session of await readdir(accountDir).catch(() => [] as string[])) {
      const sessionDir = path.join(accountDir, session);
      if (!(await realDirectory(sessionDir))) continue;
      for (const name of await readdir(sessionDir).catch(() => [] as string[])) {
        if (!OWN_FILE.test(name)) continue;
        const file = path.join(sessionDir, name);
        const stats = await lstat(file).catch(() => undefined);
        if (stats?.isFile() && now - stats.mtimeMs > location.retention.maxAgeMs) {
          await removeQuietly(file);
        }
      }
      await rmdir(sessionDir).catch(() => undefined);
    }
    await rmdir(accountDir).catch(() => undefined);
  }
}

/**
 * Writes one persisted output into the caller's own folder (folders `0700`, the file `0600`,
 * created exclusively and never through a symlink), applies retention, and returns its handle.
 */
export async function persistToStore(
  bytes: Uint8Array,
  stem: string,
  ext: string,
  location: ResultStoreLocation,
  context: InvocationContext,
  /** Handles of files retention must keep too (the other outputs of the same result). */
  keep: readonly string[] = [],
): Promise<string> {
  const folder = async (): Promise<string> => {
    // The background sweep may remove an empty folder between our mkdir and our check: try
    // again; a planted symlink fails every time.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const checked = await checkedSessionDir(location, context, true);
      if (checked) return checked;
    }
    throw new KsadkError(
      'internal',
      'the result folder of this session is not a plain directory (a symlink?); nothing was saved',
    );
  };
  let dir = await folder();
  for (let attempt = 0; ; attempt += 1) {
    const name =
      attempt === 0 ? `${stem}.${ext}` : `${stem}-${randomBytes(4).toString('hex')}.${ext}`;
    const file = path.join(dir, name);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(
        file,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 5 || (code !== 'EEXIST' && code !== 'ENOENT')) throw error;
      // ENOENT: the sweep removed the (then empty) folder meanwhile; make it again.
      if (code === 'ENOENT') dir = await folder();
      continue;
    }
    try {
      await handle.writeFile(bytes);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await removeQuietly(file);
      throw error;
    }
    await handle.close();
    const kept = new Set([file]);
    for (const handle of keep) {
      const other = handle.slice(RESULT_HANDLE_PREFIX.length);
      if (isResultHandle(handle) && HANDLE_NAME.test(other) && !other.includes('..'))
        kept.add(path.join(dir, other));
    }
    await enforceRetention(dir, kept, location.retention);
    void sweepExpired(location).catch(() => undefined);
    return `${RESULT_HANDLE_PREFIX}${name}`;
  }
}

/**
 * Resolves a handle to the file it names in the caller's own folder, or `undefined` when the
 * handle is malformed or the folder is not a plain directory. The path is for opening with
 * `O_NOFOLLOW`, never for showing to the model.
 */
export async function resolveResultHandle(
  handle: string,
  location: ResultStoreLocation,
  context: InvocationContext,
): Promise<string | undefined> {
  if (!isResultHandle(handle)) return undefined;
  const name = handle.slice(RESULT_HANDLE_PREFIX.length);
  if (!HANDLE_NAME.test(name) || name.includes('..')) return undefined;
  const dir = await checkedSessionDir(location, context, false);
  return dir === undefined ? undefined : path.join(dir, name);
}

/**
 * Reads a persisted output back — saved text, JSON, or an image or sound a tool returned — by
 * its `tool-results://` handle, from the given account, user and session's own folder (another
 * tenant's handle finds nothing). For hosts: show a saved image, attach it to the next message.
 * `undefined` when there is no such file; never follows a symlink; at most `maxPersistBytes`.
 *
 * @example
 * ```ts
 * const png = await readPersistedOutput(part.handle, gateway.budget, { accountId, userId, sessionId });
 * ```
 */
export async function readPersistedOutput(
  handle: string,
  budget: ResultStoreLocation & { readonly maxPersistBytes: number },
  context: InvocationContext,
): Promise<Buffer | undefined> {
  const file = await resolveResultHandle(handle, budget, context);
  if (!file) return undefined;
  let opened: Awaited<ReturnType<typeof open>>;
  try {
    opened = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = await opened.stat();
    if (!stats.isFile()) return undefined;
    const size = Math.min(stats.size, budget.maxPersistBytes);
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await opened.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await opened.close();
  }
}
