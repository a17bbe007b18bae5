import { describe, expect, it } from 'vitest';
import { executionRecord } from '../testing/store-conformance/execution-check-kit.js';
import { createInMemoryExecutionStore } from './memory-execution-store.js';

const end = (text: string) => ({
  status: 'succeeded' as const,
  endedAt: Date.now(),
  resultJson: JSON.stringify({ ok: true, text }),
});

describe('the in-memory execution store keeps results within quota', () => {
  it('drops the oldest results first, keeps their records, and leaves other accounts alone', () => {
    const store = createInMemoryExecutionStore({
      quotas: { resultCharsPerAccount: 100, resultCharsTotal: 10_000 },
    });
    const other = executionRecord({ accountId: 'other' });
    store.begin(other);
    store.complete(other.id, end('theirs'));
    const ids: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      const record = executionRecord({ accountId: 'acme' });
      store.begin(record);
      store.complete(record.id, end(`result ${index} ${'x'.repeat(10)}`));
      ids.push(record.id);
    }
    const kept = ids.map((id) => store.get(id) as { resultJson?: string } | undefined);
    expect(kept.every((record) => record !== undefined)).toBe(true);
    const withResult = kept.map((record) => record!.resultJson !== undefined);
    // Each result is 40 characters: the newest two fit in 100, oldest first went.
    expect(withResult).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
    expect((store.get(other.id) as { resultJson?: string }).resultJson).toContain('theirs');
  });

  it('frees a dropped record’s result from the quota, so new results are kept', () => {
    const store = createInMemoryExecutionStore({
      quotas: { perAccount: 3, perSession: 3, resultCharsPerAccount: 130 },
    });
    const ids: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      const record = executionRecord({ accountId: 'acme', sessionId: 's' });
      store.begin(record);
      store.complete(record.id, end(`result ${index} ${'x'.repeat(10)}`));
      ids.push(record.id);
    }
    const last = store.get(ids.at(-1)!) as { resultJson?: string };
    expect(last.resultJson).toContain('result 7');
  });
});
