import { describe, expect, it } from 'vitest';
import type { SandboxSession } from './sandbox-backend.js';
import { createSandboxSessionPool } from './session-pool.js';

/** A session that records whether it was killed. */
function fakeSession(id: string): SandboxSession & { killed: number } {
  const session = {
    id: `fake:${id}`,
    backend: 'local_process' as const,
    root: '/nowhere',
    killed: 0,
    writeFile: async () => undefined,
    readFile: async () => new Uint8Array(),
    listFiles: async () => [],
    run: async () => {
      throw new Error('not used');
    },
    kill: async () => {
      session.killed += 1;
    },
  };
  return session;
}

function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('createSandboxSessionPool', () => {
  it('reuses the live session for a key (created, then not)', async () => {
    const sessions = createSandboxSessionPool({ sweepIntervalMs: 0 });
    const first = await sessions.acquire('a', async () => fakeSession('1'));
    first.release();
    const second = await sessions.acquire('a', async () => fakeSession('2'));
    second.release();
    expect([first.created, second.created]).toEqual([true, false]);
    expect(second.entry.session.id).toBe('fake:1');
    await sessions.close();
  });

  it('reclaims idle sessions, but never one running a command', async () => {
    const time = clock();
    const sessions = createSandboxSessionPool({
      idleTtlMs: 1_000,
      sweepIntervalMs: 0,
      now: time.now,
    });
    const running = await sessions.acquire('busy', async () => fakeSession('busy'));
    const idle = await sessions.acquire('idle', async () => fakeSession('idle'));
    idle.release();
    time.advance(5_000);
    expect(await sessions.sweep()).toBe(1);
    expect((idle.entry.session as ReturnType<typeof fakeSession>).killed).toBe(1);
    expect((running.entry.session as ReturnType<typeof fakeSession>).killed).toBe(0);
    // Finishing restarts the idle clock.
    running.release();
    expect(await sessions.sweep()).toBe(0);
    time.advance(5_000);
    expect(await sessions.sweep()).toBe(1);
    await sessions.close();
  });

  it('hard TTL: an expired session in use is retired — new calls get a fresh one, the old dies when its command ends', async () => {
    const time = clock();
    const sessions = createSandboxSessionPool({
      ttlMs: 10_000,
      idleTtlMs: 0,
      sweepIntervalMs: 0,
      now: time.now,
    });
    const old = await sessions.acquire('k', async () => fakeSession('old'));
    time.advance(11_000);
    const fresh = await sessions.acquire('k', async () => fakeSession('new'));
    expect(fresh.created).toBe(true);
    const oldSession = old.entry.session as ReturnType<typeof fakeSession>;
    expect(oldSession.killed).toBe(0);
    old.release();
    expect(oldSession.killed).toBe(1);
    old.release(); // idempotent
    expect(old.entry.inUse).toBe(0);
    fresh.release();
    await sessions.close();
  });

  it('evicts the least recently used idle session at the limit, and refuses when all are busy', async () => {
    const time = clock();
    const sessions = createSandboxSessionPool({
      maxSessions: 2,
      sweepIntervalMs: 0,
      now: time.now,
    });
    const a = await sessions.acquire('a', async () => fakeSession('a'));
    a.release();
    time.advance(10);
    const b = await sessions.acquire('b', async () => fakeSession('b'));
    b.release();
    time.advance(10);
    const c = await sessions.acquire('c', async () => fakeSession('c'));
    expect((a.entry.session as ReturnType<typeof fakeSession>).killed).toBe(1);
    expect(
      sessions
        .entries()
        .map((entry) => entry.key)
        .sort(),
    ).toEqual(['b', 'c']);
    const b2 = await sessions.acquire('b', async () => fakeSession('b2'));
    await expect(sessions.acquire('d', async () => fakeSession('d'))).rejects.toMatchObject({
      code: 'sandbox_busy',
    });
    c.release();
    b2.release();
    await sessions.close();
  });

  it('holds the limit when many keys arrive at once', async () => {
    const sessions = createSandboxSessionPool({ maxSessions: 2, sweepIntervalMs: 0 });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        sessions.acquire(`k${i}`, async () => fakeSession(`${i}`)),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    expect(
      results.filter(
        (result) =>
          result.status === 'rejected' &&
          (result.reason as { code?: string }).code === 'sandbox_busy',
      ),
    ).toHaveLength(8);
    expect(sessions.entries()).toHaveLength(2);
    await sessions.close();
  });

  it('concurrent calls for one key share one creation, and other keys are not blocked by it', async () => {
    const sessions = createSandboxSessionPool({ sweepIntervalMs: 0 });
    let creations = 0;
    let finish: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const create = async () => {
      creations += 1;
      await slow;
      return fakeSession('slow');
    };
    const waiting = Array.from({ length: 8 }, () => sessions.acquire('k', create));
    // Another key is created while the slow one is still booting.
    const other = await sessions.acquire('other', async () => fakeSession('other'));
    expect(other.created).toBe(true);
    finish();
    const leases = await Promise.all(waiting);
    expect(creations).toBe(1);
    expect(leases.filter((lease) => lease.created)).toHaveLength(1);
    expect(new Set(leases.map((lease) => lease.entry.session.id)).size).toBe(1);
    expect(leases[0]!.entry.inUse).toBe(8);
    for (const lease of leases) lease.release();
    other.release();
    await sessions.close();
  });

  it('a failed creation is not cached', async () => {
    const sessions = createSandboxSessionPool({ sweepIntervalMs: 0 });
    await expect(
      sessions.acquire('k', async () => {
        throw new Error('boot failed');
      }),
    ).rejects.toThrow('boot failed');
    const lease = await sessions.acquire('k', async () => fakeSession('ok'));
    expect(lease.created).toBe(true);
    lease.release();
    await sessions.close();
  });

  it('close() kills everything, also sessions in use and ones still being created; it is idempotent', async () => {
    const sessions = createSandboxSessionPool({ sweepIntervalMs: 0 });
    const busy = await sessions.acquire('busy', async () => fakeSession('busy'));
    let finish: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started: () => void = () => undefined;
    const creating = new Promise<void>((resolve) => {
      started = resolve;
    });
    const booting = fakeSession('booting');
    const creation = sessions.acquire('late', async () => {
      started();
      await gate;
      return booting;
    });
    await creating;
    const closing = sessions.close();
    finish();
    await closing;
    await expect(creation).rejects.toMatchObject({ code: 'unsupported' });
    expect((busy.entry.session as ReturnType<typeof fakeSession>).killed).toBe(1);
    expect(booting.killed).toBe(1);
    await sessions.close();
    await expect(sessions.acquire('x', async () => fakeSession('x'))).rejects.toMatchObject({
      code: 'unsupported',
    });
  });

  it('the background sweeper reclaims idle sessions', { timeout: 5_000 }, async () => {
    const sessions = createSandboxSessionPool({ idleTtlMs: 20, sweepIntervalMs: 25 });
    const lease = await sessions.acquire('k', async () => fakeSession('k'));
    lease.release();
    const session = lease.entry.session as ReturnType<typeof fakeSession>;
    const deadline = Date.now() + 3_000;
    while (session.killed === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(session.killed).toBe(1);
    await sessions.close();
  });
});
