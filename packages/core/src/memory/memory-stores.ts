import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { checkOptions } from '../errors/check-options.js';
import { reserveDirectory } from '../util/reserved-dirs.js';
import type { MemoryBackend, MemoryScope } from './memory-backend.js';
import { memoryFileOf } from './memory-file.js';
import { createMemoryFileIndex, type MemoryFileIndex } from './memory-file-index.js';
import { withMemoryFileLock } from './memory-file-lock.js';
import { type IndexedMemory, indexMemory, rankMemories } from './memory-ranking.js';
import { newMemoryRecord } from './memory-record.js';
import { createTimeSlice } from './yield-to-event-loop.js';

/** Limits shared by the embedded stores. */
export interface MemoryStoreLimits {
  /** Records kept per scope; the oldest go first. @default 5000 */
  maxRecordsPerScope?: number;
}

const scopeKey = (scope: MemoryScope): string => JSON.stringify([scope.accountId, scope.userId]);

/**
 * Memories in this process only (for tests and short-lived agents). Records are indexed when
 * saved, and searches yield to the event loop, so a full scope never stalls the process.
 *
 * @example
 * ```ts
 * const tools = createMemoryToolset({ memory: createInMemoryMemoryBackend() });
 * ```
 */
export function createInMemoryMemoryBackend(limits: MemoryStoreLimits = {}): MemoryBackend {
  checkOptions(limits, { maxRecordsPerScope: true }, 'createInMemoryMemoryBackend()');
  const max = limits.maxRecordsPerScope ?? 5000;
  const scopes = new Map<string, IndexedMemory[]>();
  return {
    kind: 'memory',
    async save(scope, entry) {
      const record = newMemoryRecord(entry);
      const records = scopes.get(scopeKey(scope)) ?? [];
      records.push(indexMemory(record));
      if (records.length > max) records.splice(0, records.length - max);
      scopes.set(scopeKey(scope), records);
      return record;
    },
    async search(scope, query, limit, options) {
      // A copy: saves made while the ranking yields do not shift it.
      return rankMemories([...(scopes.get(scopeKey(scope)) ?? [])], query, limit, options);
    },
  };
}

/** Per-process queues, one per memory file, shared by every backend on that file. */
const queues = new Map<string, Promise<unknown>>();

/** One writer at a time per file within this process; the file lock orders processes. */
function serial<T>(file: string, work: () => Promise<T>): Promise<T> {
  const next = (queues.get(file) ?? Promise.resolve()).then(work, work);
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  queues.set(file, settled);
  void settled.then(() => {
    if (queues.get(file) === settled) queues.delete(file);
  });
  return next;
}

/** Appends one line, starting a new line first when a crash left the last one unfinished. */
async function appendLine(file: string, line: string): Promise<void> {
  const handle = await open(file, 'a+', 0o600);
  try {
    const { size } = await handle.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await handle.appendFile(`${prefix}${line}\n`);
  } finally {
    await handle.close();
  }
}

/** Replaces `file` with `kept` (atomically: a new file renamed over it) and indexes the result. */
async function compact(
  file: string,
  kept: readonly IndexedMemory[],
  held: () => boolean,
  index: MemoryFileIndex,
): Promise<void> {
  const lines: string[] = [];
  const slice = createTimeSlice();
  for (const entry of kept) {
    if (slice.due()) await slice.next();
    lines.push(JSON.stringify(entry.record));
  }
  const temp = `${file}.${randomUUID()}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  let stat: Awaited<ReturnType<typeof handle.stat>>;
  try {
    await handle.writeFile(`${lines.join('\n')}\n`);
    await handle.datasync();
    stat = await handle.stat();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  // Lost the lock (this process stalled past the stale limit): another writer may be appending,
  // so leave the file as it is; the next save compacts it.
  if (!held()) {
    await rm(temp, { force: true });
    return;
  }
  await rename(temp, file);
  const tail = Buffer.from(`${lines.at(-1) ?? ''}\n`);
  index.remember(file, {
    dev: stat.dev,
    ino: stat.ino,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    parsedBytes: stat.size,
    tail: lines.length > 0 ? tail : Buffer.alloc(0),
    entries: kept,
  });
}

/**
 * Memories in JSON-lines files, one file per (account, user) under `dir` (see
 * {@link memoryFileOf}), so they survive restarts and no scope ever reads another's file.
 *
 * Several processes may share `dir`: every append and every compaction (the file rewritten with
 * its newest records once it holds more than the limit, then renamed over the old one) runs
 * under a cross-process lock (`<file>.lock`, taken over after 10 s when its owner died; a writer
 * waits up to about half a minute for it, then the save fails), so no acknowledged record is lost
 * and records of any size never interleave. Searches read without the lock: an unfinished last
 * line is left for later, and lines that are not memory records are skipped. Parsed, indexed
 * files are cached per process and re-read only as far as they changed.
 *
 * @example
 * ```ts
 * const memory = createFileMemoryBackend({ dir: '.agentengine/memory', maxRecordsPerScope: 1000 });
 * ```
 */
export function createFileMemoryBackend(
  options: { dir: string } & MemoryStoreLimits,
): MemoryBackend {
  checkOptions(options, { dir: true, maxRecordsPerScope: true }, 'createFileMemoryBackend()');
  const max = options.maxRecordsPerScope ?? 5000;
  const dir = path.resolve(options.dir);
  // Other users' memories: never visible to workspace tools, even inside a workspace root.
  reserveDirectory(dir);
  const index = createMemoryFileIndex();
  return {
    kind: 'file',
    save(scope, entry) {
      const file = memoryFileOf(dir, scope);
      return serial(file, async () => {
        await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        return withMemoryFileLock(file, async (held) => {
          // Stamped under the lock: file order and creation order agree across processes.
          const record = newMemoryRecord(entry);
          await appendLine(file, JSON.stringify(record));
          const entries = await index.read(file);
          if (entries.length > max) await compact(file, entries.slice(-max), held, index);
          return record;
        });
      });
    },
    async search(scope, query, limit, searchOptions) {
      const entries = await index.read(memoryFileOf(dir, scope), searchOptions?.signal);
      return rankMemories(entries, query, limit, searchOptions);
    },
  };
}
