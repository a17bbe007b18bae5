import { createHash } from 'node:crypto';
import type { ApprovalEdit, ApprovalRecord, ApprovalStatus } from '@ksadk/core';

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
  readonly seq: string;
  readonly status: ApprovalStatus;
  readonly arguments_chars: string;
  readonly expires_at: string;
  readonly decided_at: string | null;
  readonly reason: string | null;
  /** JSON text; absent on rows written before the column existed. */
  readonly decided_by?: string | null;
  /** JSON text of the edited arguments. */
  readonly edited?: string | null;
  readonly body: string;
  readonly arguments: string;
}

/** The fixed fields of a record, stored as JSON in `body`. */
export type RecordBody = Omit<
  ApprovalRecord,
  'status' | 'decidedAt' | 'reason' | 'arguments' | 'argumentsChars' | 'decidedBy' | 'edited'
>;

/** The columns of `ksadk_approvals` a new record fills, in {@link APPROVAL_COLUMNS} order. */
export const APPROVAL_COLUMNS = [
  'id',
  'binding_key',
  'account_key',
  'session_key',
  'status',
  'arguments_chars',
  'created_at',
  'expires_at',
  'decided_at',
  'reason',
  'body',
  'arguments',
  'tool_key',
  'user_key',
  'session_id_key',
  'decide_by',
  'decided_by',
  'edited',
] as const;

/** The values of a new row for `record`, in {@link APPROVAL_COLUMNS} order. */
export function approvalRowValues(record: ApprovalRecord): unknown[] {
  const {
    status,
    decidedAt,
    reason,
    decidedBy,
    edited,
    arguments: args,
    argumentsChars,
    ...body
  } = record;
  return [
    idKeyOf(record.id),
    keyOf(record.bindingKey),
    keyOf(record.accountId),
    keyOf(record.accountId, record.sessionId),
    status,
    Math.max(0, Math.floor(argumentsChars)),
    record.createdAt,
    record.expiresAt,
    decidedAt ?? null,
    reason === undefined ? null : JSON.stringify(reason),
    JSON.stringify(body satisfies RecordBody),
    JSON.stringify(args),
    keyOf(record.toolName),
    keyOf(record.userId),
    keyOf(record.sessionId),
    record.decideBy ?? null,
    decidedBy === undefined ? null : JSON.stringify(decidedBy),
    edited === undefined ? null : JSON.stringify(edited),
  ];
}

/**
 * The record a row holds. `old` overrides what a consume took off the row (it returns the record
 * as it was, with the arguments the call runs with).
 */
export function recordOfRow(
  row: ApprovalRow,
  old: { json: string; chars: string; edited: string | null } = {
    json: row.arguments,
    chars: row.arguments_chars,
    edited: row.edited ?? null,
  },
): ApprovalRecord {
  return {
    ...(JSON.parse(row.body) as RecordBody),
    arguments: JSON.parse(old.json) as Record<string, unknown>,
    argumentsChars: Number(old.chars),
    status: row.status,
    ...(row.decided_at !== null ? { decidedAt: Number(row.decided_at) } : {}),
    ...(row.reason !== null ? { reason: JSON.parse(row.reason) as string } : {}),
    ...(row.decided_by != null ? { decidedBy: JSON.parse(row.decided_by) as string } : {}),
    ...(old.edited !== null ? { edited: JSON.parse(old.edited) as ApprovalEdit } : {}),
  };
}
