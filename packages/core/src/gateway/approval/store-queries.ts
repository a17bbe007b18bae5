import type { ApprovalAuditEntry } from './audit-entry.js';
import type { StandingGrant } from './standing-grant.js';

/** The largest page any store returns. */
export const MAX_PAGE_SIZE = 500;

/**
 * A request's status as the inbox lists it: `pending` (waiting, deadline not passed), `expired`
 * (pending past its deadline), `approved` (granted, not yet used), `rejected`, `consumed` (used,
 * or its rejection reported: what is left is a tombstone).
 */
export type ApprovalListStatus = 'pending' | 'expired' | 'approved' | 'rejected' | 'consumed';

/** One page of a listing, newest first. */
export interface ApprovalPage<T> {
  readonly items: readonly T[];
  /** Pass it back as `cursor` for the next (older) page; absent on the last page. */
  readonly nextCursor?: string;
}

/** What {@link ApprovalStore.listRequests} selects. Every field narrows the selection. */
export interface ApprovalRequestQuery {
  /** One account's requests; absent: every account's (admin tooling). */
  readonly accountId?: string;
  /** Requests of this user, or of calls that carried no user. */
  readonly userId?: string;
  readonly sessionId?: string;
  readonly toolName?: string;
  /** @default every status */
  readonly status?: ApprovalListStatus;
  /** The clock (epoch ms) `pending` and `expired` are decided by. */
  readonly now: number;
  /** 1 to {@link MAX_PAGE_SIZE}. */
  readonly limit: number;
  readonly cursor?: string;
}

/** What {@link ApprovalStore.listStandingGrants} selects. */
export interface StandingGrantQuery {
  /** One account's grants; absent: every account's. */
  readonly accountId?: string;
  /** Grants decided for this user (`''`: for calls without a user). */
  readonly userId?: string;
  readonly sessionId?: string;
  readonly toolName?: string;
  /** Also revoked and expired ones (until the store drops them). @default false */
  readonly includeInactive?: boolean;
  readonly now: number;
  readonly limit: number;
  readonly cursor?: string;
}

/** What {@link ApprovalStore.listAudit} selects. */
export interface ApprovalAuditQuery {
  /** One account's records; absent: every account's. */
  readonly accountId?: string;
  /** Records at or after this time (epoch ms). */
  readonly since?: number;
  readonly limit: number;
  readonly cursor?: string;
}

/** A standing grant and the list of them a call may be covered by. */
export type { ApprovalAuditEntry, StandingGrant };
