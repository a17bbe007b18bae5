import { createHash, randomBytes } from 'node:crypto';
import type { ApprovalRecord } from '../../gateway/approval/store.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What a test record may override; the rest gets fresh, valid values. */
export type RecordOverrides = Partial<Omit<ApprovalRecord, 'argumentsChars'>> & {
  /** Sets `argumentsChars` directly (the arguments are padded to that size). */
  argumentsChars?: number;
};

/**
 * A fresh pending approval record like the gateway makes: a new `appr_` id, a binding key of its
 * own, a one-minute expiry, and `argumentsChars` that match the canonical JSON of its arguments.
 */
export function approvalRecord(overrides: RecordOverrides = {}): ApprovalRecord {
  const now = Date.now();
  const { argumentsChars, ...rest } = overrides;
  let args: Record<string, unknown> = overrides.arguments ?? { path: 'notes.md', text: 'hello' };
  if (argumentsChars !== undefined) {
    const base = JSON.stringify({ pad: '' }).length;
    args = { pad: 'x'.repeat(Math.max(0, argumentsChars - base)) };
  }
  const json = JSON.stringify(args);
  const id = overrides.id ?? `appr_${randomBytes(16).toString('hex')}`;
  return {
    id,
    bindingKey: sha256(`binding:${id}`),
    toolName: 'write_note',
    argsDigest: sha256(json),
    argumentsChars: argumentsChars ?? json.length,
    accountId: 'acct_conformance',
    userId: 'user_conformance',
    sessionId: 'sess_conformance',
    riskLevel: 'high',
    sideEffects: ['write'],
    status: 'pending',
    createdAt: now,
    expiresAt: now + 60_000,
    ...rest,
    arguments: args,
  };
}
