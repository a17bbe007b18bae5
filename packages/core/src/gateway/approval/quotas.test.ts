import { describe, expect, it } from 'vitest';
import { DEFAULT_APPROVAL_QUOTAS, resolveApprovalQuotas } from './quotas.js';

describe('resolveApprovalQuotas', () => {
  it('fills in the defaults and keeps every limit at least 1', () => {
    expect(
      resolveApprovalQuotas({ perSession: { maxRecords: 20 }, total: { maxChars: 0 } }, 'createX'),
    ).toEqual({
      perSession: { maxRecords: 20, maxChars: DEFAULT_APPROVAL_QUOTAS.perSession.maxChars },
      perAccount: DEFAULT_APPROVAL_QUOTAS.perAccount,
      total: { maxRecords: DEFAULT_APPROVAL_QUOTAS.total.maxRecords, maxChars: 1 },
      standingGrants: DEFAULT_APPROVAL_QUOTAS.standingGrants,
      audit: DEFAULT_APPROVAL_QUOTAS.audit,
    });
  });

  it('refuses an unknown key, naming the factory and the scope', () => {
    expect(() =>
      resolveApprovalQuotas({ perAccount: { maxRecord: 5 } as never }, 'createX'),
    ).toThrow(/createX\(\{ perAccount \}\) has no option "maxRecord" — did you mean "maxRecords"/);
  });
});
