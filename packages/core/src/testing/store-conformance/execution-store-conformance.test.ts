import { describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../executions/execution-record.js';
import type { ExecutionStore } from '../../executions/execution-store.js';
import { createInMemoryExecutionStore } from '../../executions/memory-execution-store.js';
import { executionRecord } from './execution-check-kit.js';
import { checkExecutionStore } from './index.js';

describe('execution store conformance suite', () => {
  it('the in-memory execution store conforms', { timeout: 60_000 }, async () => {
    expect(await checkExecutionStore((quotas) => createInMemoryExecutionStore({ quotas }))).toEqual(
      [],
    );
  });

  it('the in-memory store bounds inline results per account and in all, oldest first', async () => {
    const store = createInMemoryExecutionStore({
      quotas: { resultCharsPerAccount: 1_000, resultCharsTotal: 3_000 },
    });
    const ids: string[] = [];
    for (let account = 0; account < 10; account += 1) {
      const outcome = await store.begin(executionRecord({ accountId: `acct_${account}` }));
      if (!outcome.created) throw new Error('not created');
      ids.push(outcome.record.id);
      await store.complete(outcome.record.id, {
        status: 'succeeded',
        endedAt: Date.now(),
        resultJson: JSON.stringify({ ok: true, text: 'r'.repeat(900) }),
      });
    }
    const kept = ids.map((id) => store.get(id) as ExecutionRecord | undefined);
    const chars = kept.reduce((sum, record) => sum + (record?.resultJson?.length ?? 0), 0);
    expect(chars).toBeLessThanOrEqual(3_000);
    expect(kept.at(-1)?.resultJson).toBeDefined();
    expect(kept[0]?.resultJson).toBeUndefined();
    expect(kept.every((record) => record !== undefined)).toBe(true);
  });

  it('fails a store whose begin is not a create-if-absent', async () => {
    const failures = await checkExecutionStore((quotas) => {
      const inner = createInMemoryExecutionStore({ quotas });
      const racy: ExecutionStore = {
        ...inner,
        // Looks, waits, then writes: concurrent begins all see nothing.
        async begin(record) {
          const found = await inner.findCall({ ...record, now: Date.now() });
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (found) return { created: false, existing: found };
          // Claims the call whatever the store found meanwhile.
          await inner.begin(record);
          return { created: true, record };
        },
      };
      return racy;
    });
    expect(failures.some((failure) => failure.includes('compare-and-set'))).toBe(true);
  });

  it('fails a store that lists another account’s records or never drops ended ones', async () => {
    const failures = await checkExecutionStore((quotas) => {
      const inner = createInMemoryExecutionStore({ quotas: { ...quotas, perSession: 1_000 } });
      const leaky: ExecutionStore = {
        ...inner,
        list: async (query) => {
          const page = await inner.list({ ...query, accountId: undefined });
          return page;
        },
      };
      return leaky;
    });
    expect(failures.some((failure) => failure.includes('the other account'))).toBe(true);
    expect(failures.some((failure) => failure.includes('oldest ended record went'))).toBe(true);
  });
});
