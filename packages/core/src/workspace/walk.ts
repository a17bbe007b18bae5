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
  const maxEntries = options.maxEntries ?? 100_000;
  const entries: WalkEntry[] = [];
  const skipped: SkippedEntry[] = [];
  let visited = 0;
  const baseRelative = path.relative(root, base).split(path.sep).join('/');
  /** The light walk: up to 16 directories read at once (entries come back unordered; callers sort). */
  const light = async (): Promise<boolean> => {
    const queue: [dir: string, relative: string][] = [[base, baseRelative]];
    const running = new Set<Promise<void>>();
    let complete = true;
    const read = async (dir: string, relativeDir: string): Promise<void> => {
      for (const dirent of await readdir(dir, { withFileTypes: true })) {
        if (visited >= maxEntries) {
          complete = false;
          return;
        }
        visited += 1;
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
  };
  const visit = async (dir: string): Promise<boolean> => {
    let names: string[];
    try {
      names = (await readdir(dir)).sort();
    } catch (error) {
      // The walk's own start must exist; a folder below it that vanished is left out.
      if (dir === base) throw error;
      skipped.push({
        path: path.relative(root, dir).split(path.sep).join('/'),
        reason: 'unreadable',
      });
      return true;
    }
    for (const name of names) {
      options.signal?.throwIfAborted();
      if (visited >= maxEntries) return false;
      visited += 1;
      const absolute = path.join(dir, name);
      // KsADK's own private folders (saved outputs, memory) are never part of a workspace.
      if (isReserved(absolute)) continue;
      const relative = path.relative(root, absolute).split(path.sep).join('/');
      let stats: Awaited<ReturnType<typeof lstat>> & { mtimeNs: bigint };
      try {
        stats = await lstat(absolute, { bigint: true });
      } catch {
        // Gone since the listing, a name too long, a name that is not valid UTF-8: left out.
        skipped.push({ path: relative, reason: 'unreadable' });
        continue;
      }
      if (stats.isSymbolicLink()) {
        let target: string | undefined;
        try {
          target = await realpath(absolute);
        } catch {
          skipped.push({ path: relative, reason: 'broken_symlink' });
          continue;
        }
        if (!inside(root, target)) {
          skipped.push({ path: relative, reason: 'symlink_outside_workspace' });
          continue;
        }
        entries.push({
          path: relative,
          name,
          absolute,
          type: 'symlink',
          size: 0,
          mtimeNs: stats.mtimeNs,
        });
        continue;
      }
      if (stats.isDirectory()) {
        entries.push({
          path: relative,
          name,
          absolute,
          type: 'directory',
          size: 0,
          mtimeNs: stats.mtimeNs,
        });
        if (options.recursive && !options.skipDirectories?.has(name) && !(await visit(absolute)))
          return false;
        continue;
      }
      if (!stats.isFile()) {
        skipped.push({ path: relative, reason: 'special_file' });
        continue;
      }
      entries.push({
        path: relative,
        name,
        absolute,
        type: 'file',
        size: Number(stats.size),
        mtimeNs: stats.mtimeNs,
      });
    }
    return true;
  };
  const complete = await (options.stats === false ? light() : visit(base));
  return { entries, skipped, truncated: !complete };
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
