import type { AuditRetention, StandingGrantQuota } from '../../gateway/approval/quotas.js';
import type { ApprovalQuota, ApprovalStore } from '../../gateway/approval/store.js';

/** Quotas a conformance check asks its store for (small ones, so they can be reached). */
export interface ApprovalStoreQuotas {
  perSession?: Partial<ApprovalQuota>;
  perAccount?: Partial<ApprovalQuota>;
  total?: Partial<ApprovalQuota>;
  standingGrants?: Partial<StandingGrantQuota>;
  audit?: Partial<AuditRetention>;
}

/**
 * Makes a fresh, empty store with the given quotas (unset ones at the store's defaults). Each
 * check makes its own store and closes it (`close()`, when the store has one) afterwards.
 */
export type ApprovalStoreFactory = (
  quotas: ApprovalStoreQuotas,
) => ApprovalStore | Promise<ApprovalStore>;
