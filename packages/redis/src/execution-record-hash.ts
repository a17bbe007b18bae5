import type { ExecutionRecord, ExecutionStatus } from '@ksadk/core';
import { hashFields } from './redis-store-context.js';

/**
 * The fixed part of a record, stored as JSON in `body`: all but its status, its attempt and its
 * end, which have hash fields of their own (a record begins `started`, without an end).
 */
export type ExecutionBody = Omit<
  ExecutionRecord,
  'status' | 'attempt' | 'endedAt' | 'errorType' | 'resultHandle' | 'resultJson'
>;

/** The body of a record about to begin. */
export function bodyOf(record: ExecutionRecord): ExecutionBody {
  const { status, attempt, endedAt, errorType, resultHandle, resultJson, ...body } = record;
  return body;
}

/**
 * A record from its HGETALL reply (`[field, value, …]`); `undefined` for an empty reply (a
 * record the store no longer holds).
 */
export function executionOf(fields: readonly string[]): ExecutionRecord | undefined {
  const map = hashFields(fields);
  const body = map.get('body');
  const status = map.get('status');
  const attempt = map.get('attempt');
  if (body === undefined || status === undefined || attempt === undefined) return undefined;
  const endedAt = map.get('end');
  const errorType = map.get('err');
  const resultHandle = map.get('handle');
  const resultJson = map.get('result');
  return {
    ...(JSON.parse(body) as ExecutionBody),
    status: status as ExecutionStatus,
    attempt: Number(attempt),
    ...(endedAt !== undefined ? { endedAt: Number(endedAt) } : {}),
    ...(errorType !== undefined ? { errorType } : {}),
    ...(resultHandle !== undefined ? { resultHandle } : {}),
    ...(resultJson !== undefined ? { resultJson } : {}),
  };
}
