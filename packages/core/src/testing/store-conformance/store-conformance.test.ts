import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ApprovalRecord,
  type ApprovalStore,
  createInMemoryApprovalStore,
} from '../../gateway/approval/store.js';
import {
  createFileMemoryBackend,
  createInMemoryMemoryBackend,
} from '../../memory/memory-stores.js';
import { checkApprovalStore, checkMemoryBackend } from './index.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('store conformance suites', () => {
  it('the in-memory approval store conforms', { timeout: 60_000 }, async () => {
    expect(await checkApprovalStore((quotas) => createInMemoryApprovalStore(quotas))).toEqual([]);
  });

  it('the in-memory memory backend conforms', { timeout: 60_000 }, async () => {
    expect(await checkMemoryBackend((limits) => createInMemoryMemoryBackend(limits))).toEqual([]);
  });

  it('the file memory backend conforms', { timeout: 60_000 }, async () => {
    const failures = await checkMemoryBackend(async (limits) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-conformance-'));
      dirs.push(dir);
      return createFileMemoryBackend({ dir, ...limits });
    });
    expect(failures).toEqual([]);
  });

  it('the approval suite fails a store whose transition is not a compare-and-set', async () => {
    const failures = await checkApprovalStore((quotas) => {
      const inner = createInMemoryApprovalStore(quotas);
      // Reads, waits, then writes: two concurrent consumes both see `approved`.
      const racy: ApprovalStore = {
        ...inner,
        async transition(id, from, to, patch) {
          const record = await inner.get(id);
          if (record?.status !== from) return undefined;
          await new Promise((resolve) => setTimeout(resolve, 5));
          await inner.transition(id, from, to, patch);
          return { ...record, ...patch, status: to };
        },
      };
      return racy;
    });
    expect(failures.some((failure) => failure.includes('concurrent consumes'))).toBe(true);
  });

  it('the approval suite fails a store that ignores quotas or drops grants', async () => {
    const failures = await checkApprovalStore(() => createInMemoryApprovalStore());
    expect(failures.some((failure) => failure.startsWith('a full session drops'))).toBe(true);
    expect(failures.some((failure) => failure.startsWith('a full store refuses'))).toBe(true);
  });

  it('the approval suite fails a store whose listings ignore the account', async () => {
    const failures = await checkApprovalStore((quotas) => {
      const inner = createInMemoryApprovalStore(quotas);
      const leaky: ApprovalStore = {
        ...inner,
        listRequests: ({ accountId: _, ...query }) => inner.listRequests(query),
        listAudit: ({ accountId: _, ...query }) => inner.listAudit(query),
      };
      return leaky;
    });
    expect(failures.some((failure) => failure.includes('the other account’s requests'))).toBe(true);
    expect(failures.some((failure) => failure.includes('a look-alike account'))).toBe(true);
  });

  it('the approval suite fails a store whose revocation is not a compare-and-set', async () => {
    const failures = await checkApprovalStore((quotas) => {
      const inner = createInMemoryApprovalStore(quotas);
      const racy: ApprovalStore = {
        ...inner,
        async revokeStandingGrant(id, revokedAt) {
          const grant = await inner.getStandingGrant(id);
          if (!grant || grant.revokedAt !== undefined) return undefined;
          await new Promise((resolve) => setTimeout(resolve, 5));
          await inner.saveStandingGrant({ ...grant, revokedAt });
          return { ...grant, revokedAt };
        },
      };
      return racy;
    });
    expect(failures.some((failure) => failure.includes('one of 20 concurrent revokes'))).toBe(true);
  });

  it('the approval suite fails a store that keeps edited arguments in a tombstone', async () => {
    const failures = await checkApprovalStore((quotas) => {
      const inner = createInMemoryApprovalStore(quotas);
      const kept = new Map<string, ApprovalRecord>();
      const keeping: ApprovalStore = {
        ...inner,
        async transition(id, from, to, patch) {
          const next = await inner.transition(id, from, to, patch);
          if (next && to === 'consumed' && next.edited)
            kept.set(id, { ...next, arguments: {}, argumentsChars: 0 });
          return next;
        },
        get: async (id) => kept.get(id) ?? inner.get(id),
      };
      return keeping;
    });
    expect(
      failures.some((failure) => failure.includes('neither the arguments nor the edited')),
    ).toBe(true);
  });

  it('the memory suite fails a backend that shares memories across scopes', async () => {
    const failures = await checkMemoryBackend((limits) => {
      const inner = createInMemoryMemoryBackend(limits);
      const everyone = { accountId: 'all', userId: 'all' };
      return {
        kind: 'leaky',
        save: (_scope, entry) => inner.save(everyone, entry),
        search: (_scope, query, limit, options) => inner.search(everyone, query, limit, options),
      };
    });
    expect(failures.some((failure) => failure.startsWith('no scope sees'))).toBe(true);
  });

  it('a hanging store fails its checks within the bound instead of hanging', async () => {
    const failures = await checkMemoryBackend(
      () => ({
        kind: 'stuck',
        save: () => new Promise(() => {}),
        search: () => new Promise(() => {}),
      }),
      { checkTimeoutMs: 50 },
    );
    expect(failures.length).toBeGreaterThan(5);
    expect(failures.every((failure) => failure.includes('did not finish within 50 ms'))).toBe(true);
  });
});
