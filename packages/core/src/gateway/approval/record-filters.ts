import { inScope } from '../../util/scope-filter.js';
import {
  type ApprovalListStatus,
  type ApprovalRequestQuery,
  MAX_PAGE_SIZE,
} from './store-queries.js';
import type { ApprovalRecord } from './store-types.js';

/** A page size within 1 and {@link MAX_PAGE_SIZE}. */
export const pageSize = (limit: number): number =>
  Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(Number.isFinite(limit) ? limit : 1)));

/** The moment a human's decision is due: the deadline, or the record's expiry. */
export const deadlineOf = (record: ApprovalRecord): number => record.decideBy ?? record.expiresAt;

/** A record's status as the inbox lists it, at `now`. */
export function listStatusOf(record: ApprovalRecord, now: number): ApprovalListStatus {
  if (record.status === 'pending') return deadlineOf(record) > now ? 'pending' : 'expired';
  return record.status;
}

/** Whether a record is selected by the query's filters (not its paging). */
export function requestMatches(record: ApprovalRecord, query: ApprovalRequestQuery): boolean {
  if (!inScope(record, query)) return false;
  return query.status === undefined || listStatusOf(record, query.now) === query.status;
}
