import { randomUUID } from 'node:crypto';
import type { CallBinding } from './approval-record.js';
import type { ApprovalAuditEntry, ApprovalAuditEvent, ApprovalAuditHow } from './audit-entry.js';
import type { StandingGrant } from './standing-grant.js';
import type { ApprovalRecord } from './store-types.js';

/** What an audit record adds to the call it is about. */
export interface AuditDetails {
  readonly how?: ApprovalAuditHow;
  readonly approvalId?: string;
  readonly grantId?: string;
  readonly by?: string;
  readonly reason?: string;
  /** The digest of what ran, when it is not the call's own (edited arguments). */
  readonly argsDigest?: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** The credential a credential record is about. */
  readonly credentialId?: string;
}

/** The call an audit record is about: from its request record, or from the call itself. */
export type AuditSubject =
  | { readonly record: ApprovalRecord }
  | { readonly binding: CallBinding }
  | { readonly grant: StandingGrant }
  /** A call's facts given as they are (credentials: no arguments). */
  | {
      readonly call: {
        readonly accountId: string;
        readonly userId: string;
        readonly sessionId: string;
        readonly toolName: string;
      };
    };

/** A new audit record, frozen, with a fresh `aud_` id. */
export function auditEntry(
  event: ApprovalAuditEvent,
  subject: AuditSubject,
  details: AuditDetails,
  at: number,
): ApprovalAuditEntry {
  const facts =
    'call' in subject
      ? { ...subject.call, argsDigest: '' }
      : 'grant' in subject
        ? {
            accountId: subject.grant.accountId,
            userId: subject.grant.userId,
            sessionId: subject.grant.sessionId,
            toolName: subject.grant.toolName,
            argsDigest: '',
          }
        : 'record' in subject
          ? {
              accountId: subject.record.accountId,
              userId: subject.record.userId,
              sessionId: subject.record.sessionId,
              toolName: subject.record.toolName,
              argsDigest: subject.record.argsDigest,
            }
          : {
              accountId: subject.binding.account,
              userId: subject.binding.context.userId ?? '',
              sessionId: subject.binding.session,
              toolName: subject.binding.tool.name,
              argsDigest: subject.binding.digest,
            };
  const entry: Record<string, unknown> = {
    id: `aud_${randomUUID().replaceAll('-', '')}`,
    at,
    event,
    ...facts,
  };
  for (const key in details) {
    const value = details[key as keyof AuditDetails];
    if (value !== undefined) entry[key] = value;
  }
  return Object.freeze(entry) as unknown as ApprovalAuditEntry;
}
