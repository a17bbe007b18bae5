import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isReserved } from '../util/reserved-dirs.js';
import { compileGlob, type GlobError } from './search/glob-matcher.js';

/** One entry found while walking a workspace. */
export interface WalkEntry {
  /** Relative to the workspace root, `/` separators. */
  readonly path: string;
  readonly name: string;
  readonly absolute: string;
  readonly type: 'file' | 'directory' | 'symlink';
  readonly size: number;
  readonly mtimeNs: bigint;
}

/** An entry left out, and why. */
export interface SkippedEntry {
  readonly path: string;
  readonly reason: 'symlink_outside_workspace' | 'broken_symlink' | 'special_file' | 'unreadable';
}

/** What a walk found. */
export interface WalkResult {
  readonly entries: WalkEntry[];
  readonly skipped: SkippedEntry[];
  /** True when the walk stopped at `maxEntries`. */
  readonly truncated: boolean;
}

/** Options for {@link walkWorkspace}. */
export interface WalkOptions {
  recursive: boolean;
  /** Entries visited at most (files and directories). @default 100000 */
  maxEntries?: number;
  /**
   * `false`: a light walk for search — no `lstat` per entry (size 0, mtime 0), symlinks and
   * special files neither listed nor reported. @default true
   */
  stats?: boolean;
  /** Directories (by name) listed but not descended into. Honoured by the full walk only. */
  skipDirectories?: ReadonlySet<string>;
  signal?: AbortSignal;
}

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}

/** A walk under way: where and how, and what it found so far. */
interface Walk {
  readonly root: string;
  readonly base: string;
  readonly options: WalkOptions;
  readonly maxEntries: number;
  readonly entries: WalkEntry[];
  readonly skipped: SkippedEntry[];
  /** Entries visited so far, counted against `maxEntries`. */
  visited: number;
}

const relativeTo = (root: string, absolute: string): string =>
  path.relative(root, absolute).split(path.sep).join('/');

/** The light walk: up to 16 directories read at once (entries come back unordered; callers sort). */
async function lightWalk(walk: Walk): Promise<boolean> {
  const { options, maxEntries, entries } = walk;
  const queue: [dir: string, relative: string][] = [[walk.base, relativeTo(walk.root, walk.base)]];
  const running = new Set<Promise<void>>();
  let complete = true;
  const read = async (dir: string, relativeDir: string): Promise<void> => {
    for (const dirent of await readdir(dir, { withFileTypes: true })) {
      if (walk.visited >= maxEntries) {
        complete = false;
        return;
      }
      walk.visited += 1;
      const isFile = dirent.isFile();
      if (!isFile && !dirent.isDirectory()) continue;
      const absolute = `${dir}${path.sep}${dirent.name}`;
      if (isReserved(absolute)) continue;
      const relative = relativeDir ? `${relativeDir}/${dirent.name}` : dirent.name;
      const type = isFile ? 'file' : 'directory';
      entries.push({ path: relative, name: dirent.name, absolute, type, size: 0, mtimeNs: 0n });
      if (!isFile && options.recursive) queue.push([absolute, relative]);
    }
  };
  while (queue.length > 0 || running.size > 0) {
    options.signal?.throwIfAborted();
    while (queue.length > 0 && running.size < 16 && complete) {
      const [dir, relative] = queue.shift()!;
      const task: Promise<void> = read(dir, relative).finally(() => running.delete(task));
      running.add(task);
    }
    if (running.size > 0) await Promise.race(running);
    if (!complete) queue.length = 0;
  }
  return complete;
}

/** The full walk of `dir`, in name order; false when it stopped at `maxEntries`. */
async function fullWalk(walk: Walk, dir: string): Promise<boolean> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (error) {
    // The walk's own start must exist; a folder below it that vanished is left out.
    if (dir === walk.base) throw error;
    walk.skipped.push({ path: relativeTo(walk.root, dir), reason: 'unreadable' });
    return true;
  }
  for (const name of names) {
    walk.options.signal?.throwIfAborted();
    if (walk.visited >= walk.maxEntries) return false;
    walk.visited += 1;
    const absolute = path.join(dir, name);
    // KsADK's own private folders (saved outputs, memory) are never part of a workspace.
    if (isReserved(absolute)) continue;
    if (!(await visitEntry(walk, absolute, name))) return false;
  }
  return true;
}

/**
 * One entry of the full walk: listed (a directory descended into), or skipped and reported;
 * false when the walk below it stopped at `maxEntries`.
 */
async function visitEntry(walk: Walk, absolute: string, name: string): Promise<boolean> {
  const { root, options, entries, skipped } = walk;
  const relative = relativeTo(root, absolute);
  let stats: Awaited<ReturnType<typeof lstat>> & { mtimeNs: bigint };
  try {
    stats = await lstat(absolute, { bigint: true });
  } catch {
    // Gone since the listing, a name too long, a name that is not valid UTF-8: left out.
    skipped.push({ path: relative, reason: 'unreadable' });
    return true;
  }
  const found = (type: WalkEntry['type'], size = 0): WalkEntry => ({
    path: relative,
    name,
    absolute,
    type,
    size,
    mtimeNs: stats.mtimeNs,
  });
  if (stats.isSymbolicLink()) {
    let target: string | undefined;
    try {
      target = await realpath(absolute);
    } catch {
      skipped.push({ path: relative, reason: 'broken_symlink' });
      return true;
    }
    if (!inside(root, target))
      skipped.push({ path: relative, reason: 'symlink_outside_workspace' });
    else entries.push(found('symlink'));
    return true;
  }
  if (stats.isDirectory()) {
    entries.push(found('directory'));
    if (!options.recursive || options.skipDirectories?.has(name)) return true;
    return fullWalk(walk, absolute);
  }
  if (!stats.isFile()) skipped.push({ path: relative, reason: 'special_file' });
  else entries.push(found('file', Number(stats.size)));
  return true;
}

/**
 * Walks a directory inside the workspace without following symlinks: symlinks that stay inside
 * the root are listed as `symlink`, those that leave it (or are broken or loop) are skipped and
 * reported. Children of each directory are visited in name order.
 */
export async function walkWorkspace(
  root: string,
  base: string,
  options: WalkOptions,
): Promise<WalkResult> {
  const walk: Walk = {
    root,
    base,
    options,
    maxEntries: options.maxEntries ?? 100_000,
    entries: [],
    skipped: [],
    visited: 0,
  };
  const complete = await (options.stats === false ? lightWalk(walk) : fullWalk(walk, base));
  return { entries: walk.entries, skipped: walk.skipped, truncated: !complete };
}

/**
 * A glob filter over workspace paths. A pattern matches an entry's relative path or its base
 * name (so `*.py` finds Python files at any depth, `src/*.py` only directly under `src`);
 * dot files are matched like any other. No pattern matches everything. Matching is linear time
 * (RE2); a glob over 256 characters or 32 wildcards, or a malformed one, is an `invalid_glob`.
 */
export async function globFilter(
  pattern: string | undefined | null,
): Promise<((entry: { path: string; name: string }) => boolean) | GlobError> {
  if (!pattern) return () => true;
  const isMatch = await compileGlob(pattern);
  if (typeof isMatch !== 'function') return isMatch;
  return (entry) => isMatch(entry.path) || isMatch(entry.name);
}
