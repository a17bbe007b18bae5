import { describe, expect, it } from 'vitest';
import { executionRecord } from '../testing/store-conformance/execution-check-kit.js';
import type { ExecutionRecord } from './execution-record.js';
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

describe('the in-memory execution store gives back exactly the result it was given', () => {
  it('any string — ASCII, accents, emoji, a lone surrogate, NUL — from complete, get, findCall, list and a replayed begin', () => {
    const store = createInMemoryExecutionStore();
    const short = ['plain', 'ünï "quoted"', '😀 and 中文', 'lone \ud800 half', 'nul \u0000 byte'];
    // Results of 1,024 characters and more are kept as bytes: both ways are checked.
    for (const text of [...short, ...short.map((item) => `${item} ${'x'.repeat(2_000)}`)]) {
      const record = executionRecord({ accountId: 'acme', sessionId: 's' });
      store.begin(record);
      // Not JSON.stringify's output: a store is given whatever string, and gives that string back.
      const resultJson = `{"text":"${text}"}`;
      const ended = store.complete(record.id, { status: 'succeeded', endedAt: 1, resultJson });
      expect(ended).toMatchObject({ id: record.id, status: 'succeeded', resultJson });
      expect(store.get(record.id)).toMatchObject({ resultJson });
      const call = { accountId: 'acme', sessionId: 's', callId: record.callId, now: Date.now() };
      expect(store.findCall(call)).toMatchObject({ resultJson });
      const again = store.begin({ ...record, id: `${record.id}_again` });
      expect(again).toMatchObject({ created: false, existing: { id: record.id, resultJson } });
      const listed = store.list({ accountId: 'acme', now: Date.now(), limit: 500 });
      if (!('items' in listed)) throw new Error('the in-memory store lists at once');
      expect(listed.items.find((item) => item.id === record.id)).toMatchObject({ resultJson });
      expect(Object.isFrozen(store.get(record.id))).toBe(true);
    }
  });

  it('a record begun with a result keeps it, counted in characters', () => {
    const store = createInMemoryExecutionStore({ quotas: { resultCharsPerAccount: 20 } });
    const first = executionRecord({ accountId: 'acme', resultJson: '"😀😀😀😀😀😀😀😀"' });
    expect(store.begin(first)).toEqual({ created: true, record: first });
    expect(store.get(first.id)).toEqual(first);
    // 18 characters (emoji are two each), though 34 bytes in UTF-8: within the quota of 20.
    const second = executionRecord({ accountId: 'acme' });
    store.begin(second);
    store.complete(second.id, { status: 'succeeded', endedAt: 1, resultJson: '"ab"' });
    // 18 + 4 is over 20: the oldest result goes, its record stays.
    expect(store.get(first.id)).not.toHaveProperty('resultJson');
    expect(store.get(second.id)).toMatchObject({ resultJson: '"ab"' });
  });
});

describe('large results, kept as bytes, count and go like small ones', () => {
  it('the oldest go first within the quota; a dropped record frees its share', () => {
    const store = createInMemoryExecutionStore({
      quotas: { perAccount: 4, perSession: 4, resultCharsPerAccount: 5_000 },
    });
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      const record = executionRecord({ accountId: 'acme', sessionId: 's' });
      store.begin(record);
      store.complete(record.id, end(`result ${index} ${'x'.repeat(2_000)}`));
      ids.push(record.id);
    }
    const kept = ids.map((id) => (store.get(id) as ExecutionRecord | undefined)?.resultJson);
    // Four records at most (the oldest ended ones dropped); of those, the newest two results fit.
    expect(kept.map((json) => json === undefined)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(kept.at(-1)).toContain('result 6');
    expect(JSON.parse(kept.at(-2)!)).toEqual({ ok: true, text: `result 5 ${'x'.repeat(2_000)}` });
  });
});
