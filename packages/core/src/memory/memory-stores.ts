import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { safePathSegment } from '../util/safe-segment.js';
import {
  type MemoryBackend,
  type MemoryRecord,
  type MemoryScope,
  rankMemories,
} from './memory-backend.js';

/** Limits shared by the embedded stores. */
export interface MemoryStoreLimits {
  /** Records kept per scope; the oldest go first. @default 5000 */
  maxRecordsPerScope?: number;
}

const scopeKey = (scope: MemoryScope): string => JSON.stringify([scope.accountId, scope.userId]);

function newRecord(entry: Parameters<MemoryBackend['save']>[1]): MemoryRecord {
  return {
    id: `mem_${randomUUID().replaceAll('-', '')}`,
    content: entry.content,
    created_at: new Date().toISOString(),
    ...(entry.sessionId ? { session_id: entry.sessionId } : {}),
    ...(entry.agentId ? { agent_id: entry.agentId } : {}),
    ...(entry.metadata && Object.keys(entry.metadata).length > 0
      ? { metadata: entry.metadata }
      : {}),
  };
}

/**
 * Memories in this process only (for tests and short-lived agents).
 *
 * @example
 * ```ts
 * const tools = createMemoryToolset({ memory: createInMemoryMemoryBackend() });
 * ```
 */
export function createInMemoryMemoryBackend(limits: MemoryStoreLimits = {}): MemoryBackend {
  const max = limits.maxRecordsPerScope ?? 5000;
  const scopes = new Map<string, MemoryRecord[]>();
  return {
    kind: 'memory',
    async save(scope, entry) {
      const record = newRecord(entry);
      const records = scopes.get(scopeKey(scope)) ?? [];
      records.push(record);
      if (records.length > max) records.splice(0, records.length - max);
      scopes.set(scopeKey(scope), records);
      return record;
    },
    async search(scope, query, limit) {
      return rankMemories(scopes.get(scopeKey(scope)) ?? [], query, limit);
    },
  };
}

/**
 * Memories in JSON-lines files, one file per (account, user) under `dir`, so they survive
 * restarts and no scope ever reads another's file. Writes are appends; a file past the record
 * limit is compacted (rewritten with the newest records) atomically.
 */
export function createFileMemoryBackend(
  options: { dir: string } & MemoryStoreLimits,
): MemoryBackend {
  const max = options.maxRecordsPerScope ?? 5000;
  const fileOf = (scope: MemoryScope): string =>
    path.join(
      options.dir,
      safePathSegment(scope.accountId),
      `${safePathSegment(scope.userId)}.jsonl`,
    );
  const queues = new Map<string, Promise<unknown>>();
  /** One writer at a time per file. */
  const serial = <T>(file: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(file) ?? Promise.resolve()).then(work, work);
    queues.set(
      file,
      next.catch(() => undefined),
    );
    return next;
  };
  const readAll = async (file: string): Promise<MemoryRecord[]> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const records: MemoryRecord[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        records.push(JSON.parse(line) as MemoryRecord);
      } catch {
        // A torn last line (a crash mid-append) is skipped, not fatal.
      }
    }
    return records;
  };
  return {
    kind: 'file',
    save(scope, entry) {
      const file = fileOf(scope);
      return serial(file, async () => {
        await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        const record = newRecord(entry);
        await appendFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
        const records = await readAll(file);
        if (records.length > max) {
          const temp = `${file}.${randomUUID()}.tmp`;
          await writeFile(
            temp,
            records
              .slice(-max)
              .map((r) => JSON.stringify(r))
              .join('\n') + '\n',
            { mode: 0o600 },
          );
          await rename(temp, file);
        }
        return record;
      });
    },
    async search(scope, query, limit) {
      return rankMemories(await readAll(fileOf(scope)), query, limit);
    },
  };
}
