/** What a session last read of a file. */
export interface ReadRecord {
  readonly mtimeNs: bigint;
  readonly sizeBytes: number;
  readonly startLine: number;
  readonly endLine: number;
  readonly totalLines: number;
  readonly partial: boolean;
}

/** Read state per (account, session, path): what makes "edit requires read" work. Bounded (LRU). */
export interface ReadStateStore {
  get(account: string, session: string, path: string): ReadRecord | undefined;
  set(account: string, session: string, path: string, record: ReadRecord): void;
  delete(account: string, session: string, path: string): void;
  /** Forgets one session, or everything. */
  clear(account?: string, session?: string): void;
  readonly size: number;
}

/** Creates an in-memory read-state store holding at most `maxEntries` records (least recently used go first). */
export function createReadStateStore(maxEntries = 10_000): ReadStateStore {
  const records = new Map<string, ReadRecord>();
  const key = (account: string, session: string, path: string): string =>
    JSON.stringify([account, session, path]);
  return {
    get(account, session, path) {
      const id = key(account, session, path);
      const record = records.get(id);
      if (record) {
        records.delete(id);
        records.set(id, record);
      }
      return record;
    },
    set(account, session, path, record) {
      const id = key(account, session, path);
      records.delete(id);
      records.set(id, record);
      while (records.size > maxEntries) records.delete(records.keys().next().value as string);
    },
    delete(account, session, path) {
      records.delete(key(account, session, path));
    },
    clear(account, session) {
      if (account === undefined) {
        records.clear();
        return;
      }
      for (const id of [...records.keys()]) {
        const [a, s] = JSON.parse(id) as [string, string];
        if (a === account && (session === undefined || s === session)) records.delete(id);
      }
    },
    get size() {
      return records.size;
    },
  };
}
