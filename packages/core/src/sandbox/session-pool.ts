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
  const ttlMs = Math.max(1_000, options.ttlMs ?? 600_000);
  const idleTtlMs = Math.max(0, options.idleTtlMs ?? 300_000);
  const maxSessions = Math.max(0, options.maxSessions ?? 32);
  const now = options.now ?? Date.now;
  const live = new Map<string, SandboxPoolEntry>();
  const creating = new Map<string, Promise<SandboxPoolEntry>>();
  /** Expired or evicted entries still running a command: killed when their last command ends. */
  const retiring = new Set<SandboxPoolEntry>();
  let closed = false;

  const expired = (entry: SandboxPoolEntry, at: number): boolean =>
    entry.expiresAt <= at || (idleTtlMs > 0 && at - entry.lastUsedAt > idleTtlMs);

  const retire = (entry: SandboxPoolEntry): Promise<void> | undefined => {
    if (live.get(entry.key) === entry) live.delete(entry.key);
    if (entry.inUse > 0) {
      retiring.add(entry);
      return undefined;
    }
    return killQuietly(entry.session);
  };

  const sweep = async (): Promise<number> => {
    const at = now();
    const kills: Promise<void>[] = [];
    for (const entry of [...live.values()]) {
      if (entry.inUse === 0 && expired(entry, at)) {
        const kill = retire(entry);
        if (kill) kills.push(kill);
      }
    }
    await Promise.all(kills);
    return kills.length;
  };

  /**
   * Makes room for one more session, synchronously (so concurrent callers cannot all pass the
   * check): evicts idle entries, least recently used first, and returns their kills.
   */
  const makeRoom = (): Promise<void>[] => {
    const kills: Promise<void>[] = [];
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
      const kill = retire(idle);
      if (kill) kills.push(kill);
    }
    return kills;
  };

  const lease = (entry: SandboxPoolEntry, created: boolean): SandboxLease => {
    entry.inUse += 1;
    entry.lastUsedAt = now();
    let released = false;
    return {
      entry,
      created,
      release: () => {
        if (released) return;
        released = true;
        entry.inUse -= 1;
        entry.lastUsedAt = now();
        if (entry.inUse === 0 && retiring.delete(entry)) void killQuietly(entry.session);
      },
    };
  };

  const timer =
    (options.sweepIntervalMs ?? 60_000) > 0
      ? setInterval(() => void sweep(), options.sweepIntervalMs ?? 60_000)
      : undefined;
  timer?.unref();

  const acquire = async (
    key: string,
    create: () => Promise<SandboxSession>,
  ): Promise<SandboxLease> => {
    if (closed) throw new KsadkError('unsupported', 'the sandbox session pool is closed');
    await sweep();
    if (closed) throw new KsadkError('unsupported', 'the sandbox session pool is closed');
    // From here to `creating.set` nothing awaits: the count check and the reservation are one step.
    const existing = live.get(key);
    if (existing && !expired(existing, now())) return lease(existing, false);
    const kills: Promise<void>[] = [];
    if (existing) {
      const kill = retire(existing);
      if (kill) kills.push(kill);
    }
    const pending = creating.get(key);
    if (pending) return lease(await pending, false);
    kills.push(...makeRoom());
    const creation = (async (): Promise<SandboxPoolEntry> => {
      await Promise.all(kills);
      const session = await create();
      const at = now();
      const entry: SandboxPoolEntry = {
        key,
        session,
        createdAt: at,
        expiresAt: at + ttlMs,
        lastUsedAt: at,
        inUse: 0,
      };
      if (closed) {
        await killQuietly(session);
        throw new KsadkError('unsupported', 'the sandbox session pool was closed');
      }
      live.set(key, entry);
      return entry;
    })();
    creating.set(key, creation);
    try {
      return lease(await creation, true);
    } finally {
      if (creating.get(key) === creation) creating.delete(key);
    }
  };

  return {
    acquire,
    get: (key) => {
      const entry = live.get(key);
      return entry && !expired(entry, now()) ? entry : undefined;
    },
    entries: () => [...live.values()],
    sweep,
    kill: async (key) => {
      const entry = live.get(key);
      if (!entry) return;
      live.delete(key);
      retiring.delete(entry);
      await killQuietly(entry.session);
    },
    close: async () => {
      if (closed) return;
      closed = true;
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
