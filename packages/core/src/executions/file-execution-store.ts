import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { withFileLock } from '../util/file-lock.js';
import { safePathSegment } from '../util/safe-segment.js';
import { executionMatches, executionPageSize } from './execution-listing.js';
import {
  type ExecutionQuotaOptions,
  type ExecutionQuotas,
  executionQuotaExceeded,
  resolveExecutionQuotas,
} from './execution-quotas.js';
import {
  type ExecutionEnd,
  type ExecutionRecord,
  isRetryOf,
  outcomeOfRecord,
} from './execution-record.js';
import type {
  ExecutionBegin,
  ExecutionPage,
  ExecutionQuery,
  ExecutionStore,
} from './execution-store.js';

/** Options for {@link createFileExecutionStore}. */
export interface FileExecutionStoreOptions extends ExecutionQuotaOptions {
  /** The folder records live in (created `0700`); every process of the host that shares it shares the records. */
  dir: string;
  /** The clock (epoch ms), for tests. @default Date.now */
  now?: () => number;
}

/** Largest record file read back: anything bigger was not written by this store. */
const MAX_RECORD_BYTES = 1024 * 1024;
/** How long a counted scope size is trusted before the folder is read again. */
const COUNT_TTL_MS = 5_000;
const BUSY = 'The execution store is busy (another process holds a record lock); try again later.';
const RECORD_FILE = /^[0-9a-f]{64}\.json$/;
/** How often a process removes the store's expired records (in the background, on a write). */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** An empty folder untouched this long is removed by the sweep. */
const EMPTY_FOLDER_AGE_MS = 60_000;

/** Reads one record file (never through a symlink); `undefined` when missing or not a record. */
async function readRecord(file: string): Promise<ExecutionRecord | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > MAX_RECORD_BYTES) return undefined;
    const value: unknown = JSON.parse(await handle.readFile('utf8'));
    const record = value as ExecutionRecord | null;
    return record !== null && typeof record === 'object' && typeof record.id === 'string'
      ? record
      : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Writes `record` to a fresh temporary file beside `file`; its path. */
async function writeTemp(file: string, record: ExecutionRecord): Promise<string> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.writeFile(JSON.stringify(record));
  } finally {
    await handle.close();
  }
  return temp;
}

/** Entries of a folder that is a real directory (never a symlink); none otherwise. */
async function entriesOf(dir: string): Promise<string[]> {
  const stats = await lstat(dir).catch(() => undefined);
  if (!stats?.isDirectory()) return [];
  return readdir(dir).catch(() => []);
}

/**
 * An {@link ExecutionStore} in a folder: one file per call (`<dir>/<account>/<session>/<hash of
 * the call id>.json`, folders `0700`, files `0600`, never through a symlink), so records outlive
 * the process and every process of the host that shares the folder shares them — a call killed
 * mid-run is found by the next process as `unknown`. A call's first record is created atomically
 * (a hard link that fails if the file exists); a retry or an end replaces it under the call's own
 * lock (`<file>.lock`). For one host: use the Redis or PostgreSQL store across hosts.
 *
 * Quotas are counted from the folders, trusted for 5 s: processes writing at once may pass a
 * limit by what they write in that time. Listing reads the files of the scope (a session, an
 * account, or all), so it is for thousands of records, not millions.
 *
 * @example
 * ```ts
 * const store = createFileExecutionStore({ dir: '/var/lib/agent/executions' });
 * const gateway = createToolGateway({ executions: { store } });
 * ```
 */
export function createFileExecutionStore(options: FileExecutionStoreOptions): ExecutionStore {
  const where = 'createFileExecutionStore()';
  checkOptions(options, { dir: true, quotas: true, now: true }, where);
  if (typeof options.dir !== 'string' || options.dir === '')
    throw new KsadkError('invalid_config', `${where}: dir must be a folder path.`);
  const quotas: ExecutionQuotas = resolveExecutionQuotas(options.quotas, where);
  const root = path.resolve(options.dir);
  const clock = options.now ?? Date.now;
  /** Files of the records this process began, by id (so ending one never scans). */
  const fileOfId = new Map<string, string>();
  const counts = new Map<string, { size: number; at: number }>();

  const accountDir = (accountId: string): string => path.join(root, safePathSegment(accountId));
  const sessionDir = (record: { accountId: string; sessionId: string }): string =>
    path.join(accountDir(record.accountId), safePathSegment(record.sessionId));
  const fileOf = (record: { accountId: string; sessionId: string; callId: string }): string =>
    path.join(
      sessionDir(record),
      `${createHash('sha256').update(record.callId).digest('hex')}.json`,
    );

  /** Record files of one session folder. */
  const filesOfSession = async (dir: string): Promise<string[]> =>
    (await entriesOf(dir))
      .filter((name) => RECORD_FILE.test(name))
      .map((name) => path.join(dir, name));

  /** Record files of one account, or of every account. */
  const filesOf = async (accountId: string | undefined): Promise<string[]> => {
    const accounts =
      accountId !== undefined
        ? [accountDir(accountId)]
        : (await entriesOf(root)).map((name) => path.join(root, name));
    const files: string[] = [];
    for (const account of accounts)
      for (const session of await entriesOf(account))
        files.push(...(await filesOfSession(path.join(account, session))));
    return files;
  };

  const readAll = async (files: readonly string[]): Promise<ExecutionRecord[]> =>
    (await Promise.all(files.map(readRecord))).filter(
      (record): record is ExecutionRecord => record !== undefined,
    );

  /** Removes a record file if it still holds `id` and `drop(record)` still says so, under its lock. */
  const dropFile = (file: string, id: string, drop: (record: ExecutionRecord) => boolean) =>
    withFileLock(file, BUSY, async (held) => {
      const current = await readRecord(file);
      if (!held() || current?.id !== id || !drop(current)) return false;
      await rm(file, { force: true });
      return true;
    });

  /**
   * Makes room in a scope that is full: its expired records go, then its oldest ended ones until a
   * tenth of the limit is free — of `owner`'s only, when given (the whole store's limit never
   * drops another account's live records). Running records stay. The count after.
   */
  const makeRoom = async (
    files: readonly string[],
    limit: number,
    now: number,
    owner?: string,
  ): Promise<number> => {
    const records = (await readAll(files)).sort((a, b) => a.startedAt - b.startedAt);
    let size = records.length;
    if (size < limit) return size;
    const target = limit - Math.max(1, Math.floor(limit / 10));
    for (const record of records) {
      const expired = record.expiresAt <= now;
      const mine = owner === undefined || record.accountId === owner;
      if (!expired && (!mine || size <= target || outcomeOfRecord(record, now) === 'running'))
        continue;
      const dropped = await dropFile(
        fileOf(record),
        record.id,
        (current) => current.expiresAt <= now || outcomeOfRecord(current, now) !== 'running',
      );
      if (dropped) size -= 1;
    }
    return size;
  };

  /** Whether one more record fits the scope, making room when it is full. */
  const fits = async (
    key: string,
    files: () => Promise<string[]>,
    limit: number,
    now: number,
    owner?: string,
  ): Promise<boolean> => {
    const known = counts.get(key);
    if (known && now - known.at < COUNT_TTL_MS && known.size + 1 < limit) return true;
    const listed = await files();
    const size = listed.length < limit ? listed.length : await makeRoom(listed, limit, now, owner);
    counts.set(key, { size, at: now });
    return size < limit;
  };

  const counted = (key: string, by: number): void => {
    const known = counts.get(key);
    if (known) known.size = Math.max(0, known.size + by);
  };

  const checkQuotas = async (record: ExecutionRecord, now: number): Promise<void> => {
    const session = sessionDir(record);
    const ok =
      (await fits(`s:${session}`, () => filesOfSession(session), quotas.perSession, now)) &&
      (await fits(
        `a:${record.accountId}`,
        () => filesOf(record.accountId),
        quotas.perAccount,
        now,
      )) &&
      (await fits('*', () => filesOf(undefined), quotas.total, now, record.accountId));
    if (!ok) throw executionQuotaExceeded(record);
  };

  const created = (file: string, record: ExecutionRecord): ExecutionBegin => {
    fileOfId.set(record.id, file);
    counted(`s:${sessionDir(record)}`, 1);
    counted(`a:${record.accountId}`, 1);
    counted('*', 1);
    return { created: true, record };
  };

  const makeFolders = async (record: ExecutionRecord, attempt = 0): Promise<void> => {
    await mkdir(root, { recursive: true, mode: 0o700 });
    for (const dir of [accountDir(record.accountId), sessionDir(record)]) {
      try {
        await mkdir(dir, { mode: 0o700 });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // The sweep removed the (empty) account folder in between: make both again.
        if (code === 'ENOENT' && attempt < 3) return makeFolders(record, attempt + 1);
        if (code !== 'EEXIST') throw error;
      }
      const stats = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      // The sweep removed the folder between the two steps: make both again.
      if (!stats && attempt < 3) return makeFolders(record, attempt + 1);
      if (!stats?.isDirectory())
        throw new KsadkError(
          'internal',
          'An execution store folder is not a plain directory (a symlink?).',
        );
    }
  };

  let lastSweep = 0;
  /** Removes expired records, at most every ten minutes, never waited for. */
  const sweep = (now: number): void => {
    if (now - lastSweep < SWEEP_INTERVAL_MS) return;
    lastSweep = now;
    void (async () => {
      for (const file of await filesOf(undefined)) {
        const record = await readRecord(file);
        if (record && record.expiresAt <= now)
          await dropFile(file, record.id, (current) => current.expiresAt <= now);
      }
      // Folders left empty for a while go too, so counting never walks what no longer holds a
      // record (`rmdir` refuses a folder that is not empty).
      for (const account of await entriesOf(root)) {
        const accountPath = path.join(root, account);
        for (const session of await entriesOf(accountPath)) {
          const sessionPath = path.join(accountPath, session);
          const stats = await lstat(sessionPath).catch(() => undefined);
          if (stats?.isDirectory() && now - stats.mtimeMs > EMPTY_FOLDER_AGE_MS)
            await rmdir(sessionPath).catch(() => undefined);
        }
        await rmdir(accountPath).catch(() => undefined);
      }
    })().catch(() => undefined);
  };

  const begin = async (record: ExecutionRecord): Promise<ExecutionBegin> => {
    const now = clock();
    sweep(now);
    await makeFolders(record);
    const file = fileOf(record);
    const existing = await readRecord(file);
    if (!existing || existing.expiresAt <= now || isRetryOf(existing, record)) {
      if (!existing) await checkQuotas(record, now);
      // First run: a hard link creates the file whole, or fails when another process won.
      if (!existing) {
        const temp = await writeTemp(file, record);
        try {
          await link(temp, file);
          return created(file, record);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        } finally {
          await rm(temp, { force: true });
        }
      }
    }
    // A record is there: decide under the call's lock whether it is replaced.
    return withFileLock(file, BUSY, async (held) => {
      const current = await readRecord(file);
      if (current && current.expiresAt > now && !isRetryOf(current, record))
        return { created: false, existing: current };
      if (!held()) throw new KsadkError('internal', BUSY);
      const next =
        current && current.expiresAt > now ? { ...record, attempt: current.attempt + 1 } : record;
      if (!current) await checkQuotas(record, now);
      await rename(await writeTemp(file, next), file);
      if (current) fileOfId.delete(current.id);
      return created(file, next);
    });
  };

  const findById = async (
    id: string,
  ): Promise<{ file: string; record: ExecutionRecord } | undefined> => {
    const known = fileOfId.get(id);
    if (known) {
      const record = await readRecord(known);
      if (record?.id === id) return { file: known, record };
    }
    for (const file of await filesOf(undefined)) {
      const record = await readRecord(file);
      if (record?.id === id) return { file, record };
    }
    return undefined;
  };

  const complete = async (id: string, end: ExecutionEnd): Promise<ExecutionRecord | undefined> => {
    const found = await findById(id);
    if (found?.record.status !== 'started') return undefined;
    return withFileLock(found.file, BUSY, async (held) => {
      const current = await readRecord(found.file);
      if (!held() || current?.id !== id || current.status !== 'started') return undefined;
      const { resultJson, ...rest } = end;
      const ended: ExecutionRecord = {
        ...current,
        ...rest,
        ...(resultJson !== undefined && resultJson.length <= quotas.resultCharsPerAccount
          ? { resultJson }
          : {}),
      };
      await rename(await writeTemp(found.file, ended), found.file);
      fileOfId.delete(id);
      return ended;
    });
  };

  const list = async (query: ExecutionQuery): Promise<ExecutionPage> => {
    const files =
      query.accountId !== undefined && query.sessionId !== undefined
        ? await filesOfSession(
            sessionDir({ accountId: query.accountId, sessionId: query.sessionId }),
          )
        : await filesOf(query.accountId);
    const limit = executionPageSize(query.limit);
    const after = query.cursor;
    const keyOf = (record: ExecutionRecord): string =>
      `${record.startedAt.toString(36).padStart(12, '0')}:${record.id}`;
    const matching = (await readAll(files))
      .filter(
        (record) =>
          executionMatches(record, query) && (after === undefined || keyOf(record) < after),
      )
      .sort((a, b) => (keyOf(a) < keyOf(b) ? 1 : -1));
    const items = matching.slice(0, limit);
    return matching.length > limit ? { items, nextCursor: keyOf(items.at(-1)!) } : { items };
  };

  return {
    shared: true,
    begin,
    complete,
    get: async (id) => (await findById(id))?.record,
    findCall: async (call) => {
      const record = await readRecord(fileOf(call));
      // A file planted in another call's place is not that call's record.
      return record &&
        record.expiresAt > call.now &&
        record.accountId === call.accountId &&
        record.sessionId === call.sessionId &&
        record.callId === call.callId
        ? record
        : undefined;
    },
    list,
  };
}
