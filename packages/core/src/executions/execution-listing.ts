import { inScope } from '../util/scope-filter.js';
import { type ExecutionRecord, outcomeOfRecord } from './execution-record.js';
import type { ExecutionPage, ExecutionQuery } from './execution-store.js';

/** The largest page a listing returns. */
export const MAX_EXECUTION_PAGE = 500;

/** A page size within 1 and {@link MAX_EXECUTION_PAGE}. */
export const executionPageSize = (limit: number): number =>
  Math.min(MAX_EXECUTION_PAGE, Math.max(1, Math.floor(Number.isFinite(limit) ? limit : 1)));

/** Whether a record is selected by the query's filters (not its paging). */
export function executionMatches(record: ExecutionRecord, query: ExecutionQuery): boolean {
  if (record.expiresAt <= query.now || !inScope(record, query)) return false;
  if (query.since !== undefined && record.startedAt < query.since) return false;
  return query.outcome === undefined || outcomeOfRecord(record, query.now) === query.outcome;
}

/**
 * One page of records newest first from items in insertion order: those whose sequence number is
 * below the cursor's, matching the query. The cursor is the last item's sequence number.
 */
export function pageOfRecords<T>(
  ids: readonly T[],
  recordOf: (item: T) => ExecutionRecord | undefined,
  seqOf: (item: T) => number,
  query: ExecutionQuery,
): ExecutionPage {
  const limit = executionPageSize(query.limit);
  const below = query.cursor !== undefined ? Number.parseInt(query.cursor, 36) : Infinity;
  const items: ExecutionRecord[] = [];
  let lastSeq = -1;
  for (let index = ids.length - 1; index >= 0; index -= 1) {
    const id = ids[index]!;
    const seq = seqOf(id);
    if (!(seq < below)) continue;
    const record = recordOf(id);
    if (!record || !executionMatches(record, query)) continue;
    if (items.length === limit) return { items, nextCursor: lastSeq.toString(36) };
    items.push(record);
    lastSeq = seq;
  }
  return { items };
}
