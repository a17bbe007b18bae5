import type {
  ApprovalEdit,
  ApprovalRecord,
  ApprovalStatus,
  ApprovalTransitionPatch,
} from '@ksadk/core';
import { deadlineOf } from '@ksadk/core/adapter';
import { hashFields } from './redis-store-context.js';

/** The fixed part of a record, stored as JSON in `body` (the rest has hash fields of its own). */
export type RecordBody = Omit<
  ApprovalRecord,
  'status' | 'decidedAt' | 'reason' | 'arguments' | 'argumentsChars' | 'decidedBy' | 'edited'
>;

/**
 * A decision's patch as the create and transition scripts read it: decidedAt ('' = none),
 * hasReason, reason, hasDecidedBy, decidedBy, edited (JSON, '' = none).
 */
export const patchArgs = (patch: ApprovalTransitionPatch): string[] => [
  patch.decidedAt === undefined ? '' : String(patch.decidedAt),
  patch.reason === undefined ? '0' : '1',
  patch.reason ?? '',
  patch.decidedBy === undefined ? '0' : '1',
  patch.decidedBy ?? '',
  patch.edited === undefined ? '' : JSON.stringify(patch.edited),
];

/** What the listing filters on, kept beside the body: tool, user, session, deadline. */
export const listingArgs = (record: ApprovalRecord): string[] => [
  record.toolName,
  record.userId,
  record.sessionId,
  String(deadlineOf(record)),
];

/** A record from its HGETALL reply (`[field, value, …]`). */
export function recordOf(fields: readonly string[]): ApprovalRecord | undefined {
  const map = hashFields(fields);
  const body = map.get('body');
  const status = map.get('status');
  const args = map.get('args');
  if (body === undefined || status === undefined || args === undefined) return undefined;
  const decidedAt = map.get('decidedAt');
  const reason = map.get('reason');
  const decidedBy = map.get('decidedBy');
  const edited = map.get('edited');
  return {
    ...(JSON.parse(body) as RecordBody),
    arguments: JSON.parse(args) as Record<string, unknown>,
    argumentsChars: Number(map.get('chars') ?? 0),
    status: status as ApprovalStatus,
    ...(decidedAt !== undefined ? { decidedAt: Number(decidedAt) } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(decidedBy !== undefined ? { decidedBy } : {}),
    ...(edited !== undefined ? { edited: JSON.parse(edited) as ApprovalEdit } : {}),
  };
}
