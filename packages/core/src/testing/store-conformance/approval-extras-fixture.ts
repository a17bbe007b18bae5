import { randomBytes } from 'node:crypto';
import type { ApprovalAuditEntry } from '../../gateway/approval/audit-entry.js';
import type { StandingGrant } from '../../gateway/approval/standing-grant.js';

const hex = (): string => randomBytes(16).toString('hex');

/** A fresh standing grant: allow `write_note` for the conformance session for an hour. */
export function standingGrant(overrides: Partial<StandingGrant> = {}): StandingGrant {
  const now = Date.now();
  return {
    id: `sgr_${hex()}`,
    effect: 'allow',
    scope: 'session',
    accountId: 'acct_conformance',
    userId: 'user_conformance',
    sessionId: 'sess_conformance',
    toolName: 'write_note',
    createdAt: now,
    expiresAt: now + 3_600_000,
    approvalId: `appr_${hex()}`,
    decidedBy: 'account:acct_conformance',
    ...overrides,
  };
}

/** A fresh audit record: a request of `write_note` in the conformance session, now. */
export function auditEntry(overrides: Partial<ApprovalAuditEntry> = {}): ApprovalAuditEntry {
  return {
    id: `aud_${hex()}`,
    at: Date.now(),
    event: 'requested',
    accountId: 'acct_conformance',
    userId: 'user_conformance',
    sessionId: 'sess_conformance',
    toolName: 'write_note',
    argsDigest: hex() + hex(),
    ...overrides,
  };
}
