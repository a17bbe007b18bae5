import { describe, expect, it } from 'vitest';
import type { ApprovalAuditEntry } from './audit-entry.js';
import { createMemoryAuditLog } from './memory-audit-log.js';

let counter = 0;
const entry = (accountId: string, at = Date.now()): ApprovalAuditEntry => {
  counter += 1;
  return Object.freeze({
    id: `aud_${counter.toString(16).padStart(32, '0')}`,
    at,
    event: 'used',
    accountId,
    userId: '',
    sessionId: 's',
    toolName: 't',
    argsDigest: 'd',
  });
};

const all = (log: ReturnType<typeof createMemoryAuditLog>, accountId?: string) => {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = log.list({
      ...(accountId ? { accountId } : {}),
      limit: 7,
      ...(cursor ? { cursor } : {}),
    });
    out.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
};

describe('the in-memory audit log', () => {
  it("keeps an account to its count, newest first, and a flood of one account never drops another's", () => {
    const log = createMemoryAuditLog(
      { retentionMs: 3_600_000, perAccount: 50, total: 100 },
      Date.now,
    );
    const victim = [entry('victim'), entry('victim')];
    for (const item of victim) log.append(item);
    const flood = Array.from({ length: 10_000 }, () => entry('flood'));
    for (const item of flood) log.append(item);
    expect(all(log, 'victim')).toEqual(victim.map((item) => item.id).reverse());
    expect(all(log, 'flood')).toEqual(
      flood
        .slice(-50)
        .map((item) => item.id)
        .reverse(),
    );
    expect(all(log)).toHaveLength(52);
  });

  it('drops records past their age, and the oldest of the whole log past its total', () => {
    let clock = 1_000_000;
    const log = createMemoryAuditLog(
      { retentionMs: 1_000, perAccount: 1_000, total: 3 },
      () => clock,
    );
    const old = entry('a', clock);
    log.append(old);
    clock += 2_000;
    const fresh = [entry('b', clock), entry('c', clock), entry('a', clock)];
    for (const item of fresh) log.append(item);
    expect(all(log)).toEqual(fresh.map((item) => item.id).reverse());
    const newer = entry('d', clock);
    log.append(newer);
    expect(all(log)).toEqual([newer, ...fresh.slice(1).reverse()].map((item) => item.id));
    expect(all(log, 'b')).toEqual([]);
  });
});
