// For the store packages' tests: an approval record as the gateway would write it. Imports
// nothing from the packages.
import { randomUUID } from 'node:crypto';

/** A pending approval record for acme/alice/s1 (a fresh id each time), with `overrides`. */
export const testApprovalRecord = (overrides: Record<string, unknown> = {}) => {
  const now = Date.now();
  return {
    id: `appr_${randomUUID().replaceAll('-', '')}`,
    bindingKey: 'binding',
    toolName: 'write_note',
    argsDigest: 'digest',
    arguments: { text: 'hello' },
    argumentsChars: 16,
    accountId: 'acme',
    userId: 'alice',
    sessionId: 's1',
    riskLevel: 'high' as const,
    sideEffects: ['write'],
    status: 'pending' as const,
    createdAt: now,
    expiresAt: now + 60_000,
    ...overrides,
  };
};
