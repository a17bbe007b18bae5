import type { ExecutionRecord, ExecutionStatus } from '@ksadk/core';
import { idKeyOf, keyOf } from './approval-rows.js';

/**
 * A row of `ksadk_executions` as `pg` returns it (bigint columns as strings) or as
 * `to_jsonb` gives it (as numbers).
 */
export interface ExecutionRow {
  readonly seq: string | number;
  readonly execution_id: string;
  readonly call_id: string;
  readonly call_id_given: boolean;
  readonly tool_name: string;
  readonly args_digest: string;
  readonly account_id: string;
  readonly user_id: string;
  readonly session_id: string;
  readonly invocation_id: string | null;
  readonly approval_id: string | null;
  readonly standing_grant_id: string | null;
  readonly status: ExecutionStatus;
  readonly attempt: number;
  readonly started_at: string | number;
  readonly deadline_at: string | number;
  readonly ended_at: string | number | null;
  readonly error_type: string | null;
  readonly result_handle: string | null;
  readonly result_json: string | null;
  readonly expires_at: string | number;
  /** Absent before migration 7 ran in a copy of the row read earlier. */
  readonly arguments_json?: string | null;
}

/** The keys a record is found by: its own, its call's (account, session, call id), its scopes'. */
export const executionKeys = (record: {
  readonly accountId: string;
  readonly sessionId: string;
  readonly callId: string;
}) => ({
  call_key: keyOf(record.accountId, record.sessionId, record.callId),
  account_key: keyOf(record.accountId),
  session_key: keyOf(record.accountId, record.sessionId),
});

/** The new row of a record, as the begin function reads it (JSON, column names as keys). */
export function executionRowOf(record: ExecutionRecord): Record<string, unknown> {
  return {
    id: idKeyOf(record.id),
    ...executionKeys(record),
    execution_id: record.id,
    call_id: record.callId,
    call_id_given: record.callIdGiven,
    tool_name: record.toolName,
    args_digest: record.argsDigest,
    account_id: record.accountId,
    user_id: record.userId,
    session_id: record.sessionId,
    invocation_id: record.invocationId ?? null,
    approval_id: record.approvalId ?? null,
    standing_grant_id: record.standingGrantId ?? null,
    status: record.status,
    attempt: record.attempt,
    started_at: record.startedAt,
    deadline_at: record.deadlineAt,
    ended_at: record.endedAt ?? null,
    error_type: record.errorType ?? null,
    result_handle: record.resultHandle ?? null,
    result_json: record.resultJson ?? null,
    result_chars: record.resultJson?.length ?? 0,
    expires_at: record.expiresAt,
  };
}

/** The record a row holds. */
export function executionOfRow(row: ExecutionRow): ExecutionRecord {
  return {
    id: row.execution_id,
    callId: row.call_id,
    callIdGiven: row.call_id_given,
    toolName: row.tool_name,
    argsDigest: row.args_digest,
    accountId: row.account_id,
    userId: row.user_id,
    sessionId: row.session_id,
    ...(row.invocation_id !== null ? { invocationId: row.invocation_id } : {}),
    ...(row.approval_id !== null ? { approvalId: row.approval_id } : {}),
    ...(row.standing_grant_id !== null ? { standingGrantId: row.standing_grant_id } : {}),
    status: row.status,
    attempt: Number(row.attempt),
    startedAt: Number(row.started_at),
    deadlineAt: Number(row.deadline_at),
    ...(row.ended_at !== null ? { endedAt: Number(row.ended_at) } : {}),
    ...(row.error_type !== null ? { errorType: row.error_type } : {}),
    ...(row.result_handle !== null ? { resultHandle: row.result_handle } : {}),
    ...(row.result_json !== null ? { resultJson: row.result_json } : {}),
    ...(row.arguments_json !== null && row.arguments_json !== undefined
      ? { argumentsJson: row.arguments_json }
      : {}),
    expiresAt: Number(row.expires_at),
  };
}
