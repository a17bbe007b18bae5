import { KsadkError } from '../errors/ksadk-error.js';
import type { SandboxSession } from './sandbox-backend.js';

/** Options for {@link createSandboxSessionPool}. */
export interface SandboxSessionPoolOptions {
  /** Hard lifetime of a session from its creation; never extended. @default 600_000 */
  ttlMs?: number;
  /** A session unused this long is reclaimed; `0` turns idle reclamation off. @default 300_000 */
  idleTtlMs?: number;
  /** Sessions kept at once; the least recently used idle one goes first. `0` = no limit. @default 32 */
  maxSessions?: number;
  /** How often expired sessions are reclaimed in the background; `0` = only on use. @default 60_000 */
  sweepIntervalMs?: number;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** One live session and its bookkeeping (times in epoch milliseconds). */
export interface SandboxPoolEntry {
  readonly key: string;
  readonly session: SandboxSession;
  readonly createdAt: number;
  readonly expiresAt: number;
  lastUsedAt: number;
  /** Commands running on it now: an entry in use is never reclaimed. */
  inUse: number;
}

/** A session handed out by {@link SandboxSessionPool.acquire}; call `release` when the command ends. */
export interface SandboxLease {
  readonly entry: SandboxPoolEntry;
  /** True when this call created the session. */
  readonly created: boolean;
  /** Marks the command finished (idempotent); the idle clock restarts now. */
  release(): void;
}

/** Sessions keyed by caller, reused across calls and reclaimed by age, idleness and count. */
export interface SandboxSessionPool {
  /**
   * The live session for `key`, or a new one from `create`. Creation runs outside any global lock;
   * concurrent calls for one key share one creation.
   *
   * @throws {KsadkError} `setup` when `create` fails; `unsupported` after `close()`;
   * `sandbox_busy` when `maxSessions` sessions are all running commands.
   */
  acquire(key: string, create: () => Promise<SandboxSession>): Promise<SandboxLease>;
  /** The entry for `key`, when live. */
  get(key: string): SandboxPoolEntry | undefined;
  /** Live entries. */
  entries(): SandboxPoolEntry[];
  /** Kills expired and idle sessions that are not in use; returns how many were killed. */
  sweep(): Promise<number>;
  /** Kills the session for `key` now (also when in use). */
  kill(key: string): Promise<void>;
  /** Stops the sweeper and kills every session, including ones being created. Idempotent. */
  close(): Promise<void>;
}

/** Kills a session, never throwing (a failed kill is not the caller's problem). */
async function killQuietly(session: SandboxSession): Promise<void> {
  try {
    await session.kill();
  } catch {
    // The backend already reports and cleans up what it can.
  }
}

/** A pool's settings and its entries: live, being created and retiring. */
interface PoolState {
  readonly ttlMs: number;
  readonly idleTtlMs: number;
  readonly maxSessions: number;
  readonly now: () => number;
  readonly live: Map<string, SandboxPoolEntry>;
  readonly creating: Map<string, Promise<SandboxPoolEntry>>;
  /** Expired or evicted entries still running a command: killed when their last command ends. */
  readonly retiring: Set<SandboxPoolEntry>;
  closed: boolean;
}

const expired = (pool: PoolState, entry: SandboxPoolEntry, at: number): boolean =>
  entry.expiresAt <= at || (pool.idleTtlMs > 0 && at - entry.lastUsedAt > pool.idleTtlMs);

/** Takes `entry` out of the pool: killed now when idle, else when its last command ends. */
function retire(pool: PoolState, entry: SandboxPoolEntry): Promise<void> | undefined {
  if (pool.live.get(entry.key) === entry) pool.live.delete(entry.key);
  if (entry.inUse > 0) {
    pool.retiring.add(entry);
    return undefined;
  }
  return killQuietly(entry.session);
}

/** {@link SandboxSessionPool.sweep}. */
async function sweep(pool: PoolState): Promise<number> {
  const at = pool.now();
  const kills: Promise<void>[] = [];
  for (const entry of [...pool.live.values()]) {
    if (entry.inUse === 0 && expired(pool, entry, at)) {
      const kill = retire(pool, entry);
      if (kill) kills.push(kill);
    }
  }
  await Promise.all(kills);
  return kills.length;
}

/**
 * Makes room for one more session, synchronously (so concurrent callers cannot all pass the
 * check): evicts idle entries, least recently used first, and returns their kills.
 */
function makeRoom(pool: PoolState): Promise<void>[] {
  const kills: Promise<void>[] = [];
  const { live, creating, maxSessions } = pool;
  if (maxSessions === 0) return kills;
  while (live.size + creating.size >= maxSessions) {
    const idle = [...live.values()]
      .filter((entry) => entry.inUse === 0)
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
    if (!idle) {
      throw new KsadkError(
        'sandbox_busy',
        `all ${maxSessions} sandbox sessions are running commands; try again when one finishes`,
      );
    }
    const kill = retire(pool, idle);
    if (kill) kills.push(kill);
  }
  return kills;
}

/** A lease on `entry`: one more command in use until `release`. */
function lease(pool: PoolState, entry: SandboxPoolEntry, created: boolean): SandboxLease {
  entry.inUse += 1;
  entry.lastUsedAt = pool.now();
  let released = false;
  return {
    entry,
    created,
    release: () => {
      if (released) return;
      released = true;
      entry.inUse -= 1;
      entry.lastUsedAt = pool.now();
      if (entry.inUse === 0 && pool.retiring.delete(entry)) void killQuietly(entry.session);
    },
  };
}

/** Creates the entry for `key` once `kills` are done; a session made after close() is killed. */
async function createEntry(
  pool: PoolState,
  key: string,
  create: () => Promise<SandboxSession>,
  kills: Promise<void>[],
): Promise<SandboxPoolEntry> {
  await Promise.all(kills);
  const session = await create();
  const at = pool.now();
  const entry: SandboxPoolEntry = {
    key,
    session,
    createdAt: at,
    expiresAt: at + pool.ttlMs,
    lastUsedAt: at,
    inUse: 0,
  };
  if (pool.closed) {
    await killQuietly(session);
    throw new KsadkError('unsupported', 'the sandbox session pool was closed');
  }
  pool.live.set(key, entry);
  return entry;
}

/** {@link SandboxSessionPool.acquire}. */
async function acquire(
  pool: PoolState,
  key: string,
  create: () => Promise<SandboxSession>,
): Promise<SandboxLease> {
  if (pool.closed) throw new KsadkError('unsupported', 'the sandbox session pool is closed');
  await sweep(pool);
  if (pool.closed) throw new KsadkError('unsupported', 'the sandbox session pool is closed');
  // From here to `creating.set` nothing awaits: the count check and the reservation are one step.
  const existing = pool.live.get(key);
  if (existing && !expired(pool, existing, pool.now())) return lease(pool, existing, false);
  const kills: Promise<void>[] = [];
  if (existing) {
    const kill = retire(pool, existing);
    if (kill) kills.push(kill);
  }
  const pending = pool.creating.get(key);
  if (pending) return lease(pool, await pending, false);
  kills.push(...makeRoom(pool));
  const creation = createEntry(pool, key, create, kills);
  pool.creating.set(key, creation);
  try {
    return lease(pool, await creation, true);
  } finally {
    if (pool.creating.get(key) === creation) pool.creating.delete(key);
  }
}

/**
 * Creates a sandbox session pool: a hard TTL from
 * creation, an idle TTL, a maximum count with least-recently-used eviction of idle sessions, an
 * in-use count so a running command is never reaped (an expired entry in use is retired: new
 * calls get a fresh session, and the old one is killed when its last command ends), one in-flight
 * creation per key outside any lock, and a background sweeper that does not keep the process
 * alive.
 *
 * @example
 * ```ts
 * const sessions = createSandboxSessionPool({ ttlMs: 600_000, maxSessions: 8 });
 * const lease = await sessions.acquire('acme/s1', () => backend.createSession({ sessionId: 's1' }));
 * try {
 *   await lease.entry.session.run({ argv: ['ls'], timeoutMs: 5_000 });
 * } finally {
 *   lease.release();
 * }
 * await sessions.close();
 * ```
 */
export function createSandboxSessionPool(
  options: SandboxSessionPoolOptions = {},
): SandboxSessionPool {
  const pool: PoolState = {
    ttlMs: Math.max(1_000, options.ttlMs ?? 600_000),
    idleTtlMs: Math.max(0, options.idleTtlMs ?? 300_000),
    maxSessions: Math.max(0, options.maxSessions ?? 32),
    now: options.now ?? Date.now,
    live: new Map(),
    creating: new Map(),
    retiring: new Set(),
    closed: false,
  };
  const { live, retiring } = pool;
  const timer =
    (options.sweepIntervalMs ?? 60_000) > 0
      ? setInterval(() => void sweep(pool), options.sweepIntervalMs ?? 60_000)
      : undefined;
  timer?.unref();

  return {
    acquire: (key, create) => acquire(pool, key, create),
    get: (key) => {
      const entry = live.get(key);
      return entry && !expired(pool, entry, pool.now()) ? entry : undefined;
    },
    entries: () => [...live.values()],
    sweep: () => sweep(pool),
    kill: async (key) => {
      const entry = live.get(key);
      if (!entry) return;
      live.delete(key);
      retiring.delete(entry);
      await killQuietly(entry.session);
    },
    close: async () => {
      if (pool.closed) return;
      pool.closed = true;
      if (timer) clearInterval(timer);
      const all = [...live.values(), ...retiring];
      live.clear();
      retiring.clear();
      // Creations in flight kill their own session when they finish and see `closed`; close()
      // does not wait for them (one may never finish).
      await Promise.all(all.map((entry) => killQuietly(entry.session)));
    },
  };
}
