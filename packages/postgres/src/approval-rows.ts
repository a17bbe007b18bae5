import { createHash } from 'node:crypto';
import type { ApprovalRecord, ApprovalStatus } from '@ksadk/core';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Hex SHA-256 of JSON-encoded parts: how ids of any shape become keys (no separator, no NUL). */
export const keyOf = (...parts: string[]): string => sha256(JSON.stringify(parts));

/**
 * The primary key of an approval id: the id itself when it is plain (what the gateway makes:
 * `appr_` + hex), else `#` + a hash of it, so NUL, invalid UTF-16 or huge ids never reach SQL text.
 */
export const idKeyOf = (id: string): string =>
  /^[A-Za-z0-9_.:-]{1,128}$/.test(id) ? id : `#${keyOf(id)}`;

/** A row of `ksadk_approvals` as `pg` returns it (bigint columns as strings). */
export interface ApprovalRow {
  readonly status: ApprovalStatus;
  readonly arguments_chars: string;
  readonly expires_at: string;
  readonly decided_at: string | null;
  readonly reason: string | null;
  readonly body: string;
  readonly arguments: string;
}

/** The fixed fields of a record, stored as JSON in `body`. */
export type RecordBody = Omit<
  ApprovalRecord,
  'status' | 'decidedAt' | 'reason' | 'arguments' | 'argumentsChars'
>;

/** The record a row holds (`args` overrides the stored arguments: a consume returns the old ones). */
export function recordOfRow(
  row: ApprovalRow,
  args: { json: string; chars: string } = { json: row.arguments, chars: row.arguments_chars },
): ApprovalRecord {
  return {
    ...(JSON.parse(row.body) as RecordBody),
    arguments: JSON.parse(args.json) as Record<string, unknown>,
    argumentsChars: Number(args.chars),
    status: row.status,
    ...(row.decided_at !== null ? { decidedAt: Number(row.decided_at) } : {}),
    ...(row.reason !== null ? { reason: JSON.parse(row.reason) as string } : {}),
  };
}
