import { constants } from 'node:fs';
import { open, readlink } from 'node:fs/promises';
import path from 'node:path';
import { walkWorkspace } from '../../workspace/walk.js';
import type { SandboxSession } from '../sandbox-backend.js';

/** Limits of a workspace → sandbox copy. */
export interface WorkspaceSyncLimits {
  /** Files copied at most; the copy stops there. @default 2000 */
  maxFiles: number;
  /** Larger files are skipped. @default 2 MiB */
  maxFileBytes: number;
  /** A file that would pass this total is skipped (later smaller ones may still fit). @default 25 MiB */
  maxTotalBytes: number;
}

/** The Python KsADK's defaults. */
export const DEFAULT_SYNC_LIMITS: WorkspaceSyncLimits = {
  maxFiles: 2000,
  maxFileBytes: 2 * 1024 * 1024,
  maxTotalBytes: 25 * 1024 * 1024,
};

/** Directories never copied (any depth). */
export const SYNC_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '__pycache__',
  '.venv',
  'node_modules',
  '.pytest_cache',
]);

/** What a copy did. */
export interface WorkspaceSyncReport {
  files: number;
  bytes: number;
  /**
   * Files left out, by reason: `symlink`, `special_file`, `hard_link` (a file with other names,
   * which may live outside the workspace), `unreadable`, `too_large`, `over_total`, `over_count`,
   * `changed` (it changed while being copied).
   */
  skipped: Record<string, number>;
  /** True when the workspace had more entries than the walk visits (10 per allowed file). */
  truncated: boolean;
}

const inside = (root: string, candidate: string): boolean =>
  candidate === root || candidate.startsWith(root + path.sep);

/**
 * Reads a regular file of the workspace without following a symlink anywhere on its way out: the
 * last component is opened with `O_NOFOLLOW`, and on Linux the opened file's real path must still
 * be inside the root (a parent swapped for a symlink after the walk is caught here).
 */
async function readInside(
  root: string,
  absolute: string,
  maxBytes: number,
): Promise<Buffer | string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 'changed';
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return 'changed';
    // A file with other names (a hard link) may be a host file linked into the workspace.
    if (stats.nlink > 1) return 'hard_link';
    if (stats.size > maxBytes) return 'too_large';
    if (process.platform === 'linux') {
      const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => '');
      if (!inside(root, real)) return 'changed';
    }
    const data = await handle.readFile();
    return data.length > maxBytes ? 'too_large' : data;
  } catch {
    return 'unreadable';
  } finally {
    await handle.close();
  }
}

/**
 * Copies a workspace into a new sandbox session (isolated backends):
 * regular files only, walked in name order without following symlinks — a symlink, in or
 * out of the workspace, is never uploaded, and no file is read through one — skipping `.git`,
 * `node_modules`, `.venv`, `__pycache__` and `.pytest_cache`, within the count and byte limits.
 * Files go to the same relative paths under the session root. Never copied back.
 */
export async function syncWorkspaceToSandbox(
  workspaceRoot: string,
  session: SandboxSession,
  limits: WorkspaceSyncLimits = DEFAULT_SYNC_LIMITS,
): Promise<WorkspaceSyncReport> {
  const report: WorkspaceSyncReport = { files: 0, bytes: 0, skipped: {}, truncated: false };
  const skip = (reason: string): void => {
    report.skipped[reason] = (report.skipped[reason] ?? 0) + 1;
  };
  const walk = await walkWorkspace(workspaceRoot, workspaceRoot, {
    recursive: true,
    skipDirectories: SYNC_SKIPPED_DIRECTORIES,
    maxEntries: Math.max(limits.maxFiles * 10, 10_000),
  });
  report.truncated = walk.truncated;
  for (const entry of walk.skipped)
    skip(
      entry.reason === 'special_file' || entry.reason === 'unreadable' ? entry.reason : 'symlink',
    );
  for (const entry of walk.entries) {
    if (entry.type === 'symlink') {
      skip('symlink');
      continue;
    }
    if (entry.type !== 'file') continue;
    if (entry.path.split('/').some((segment) => SYNC_SKIPPED_DIRECTORIES.has(segment))) continue;
    if (report.files >= limits.maxFiles) {
      skip('over_count');
      break;
    }
    if (entry.size > limits.maxFileBytes) {
      skip('too_large');
      continue;
    }
    if (report.bytes + entry.size > limits.maxTotalBytes) {
      skip('over_total');
      continue;
    }
    const data = await readInside(workspaceRoot, entry.absolute, limits.maxFileBytes);
    if (typeof data === 'string') {
      skip(data);
      continue;
    }
    if (report.bytes + data.length > limits.maxTotalBytes) {
      skip('over_total');
      continue;
    }
    await session.writeFile(entry.path, data);
    report.files += 1;
    report.bytes += data.length;
  }
  return report;
}
