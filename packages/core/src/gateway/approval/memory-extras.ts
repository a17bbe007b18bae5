import { createMemoryAuditLog } from './memory-audit-log.js';
import { type ApprovalQuotas, approvalQuotaExceeded } from './quotas.js';
import { pageSize } from './record-filters.js';
import { isActiveGrant, type StandingGrant } from './standing-grant.js';
import type { ApprovalPage, StandingGrantQuery } from './store-queries.js';
import type { ApprovalStore } from './store-types.js';

/** The standing-grant and audit half of the in-memory store. */
export type MemoryExtras = Pick<
  ApprovalStore,
  | 'saveStandingGrant'
  | 'getStandingGrant'
  | 'findStandingGrants'
  | 'listStandingGrants'
  | 'revokeStandingGrant'
  | 'appendAudit'
  | 'listAudit'
>;

/** Items of `list` (oldest first, each with its sequence number) newest first, one page. */
function pageOf<T>(
  list: readonly { readonly seq: number; readonly item: T }[],
  keep: (item: T) => boolean,
  limit: number,
  cursor: string | undefined,
): ApprovalPage<T> {
  const before = cursor === undefined ? Infinity : Number(cursor);
  const size = pageSize(limit);
  const items: T[] = [];
  let last = 0;
  for (let index = list.length - 1; index >= 0; index -= 1) {
    const { seq, item } = list[index]!;
    if (!(seq < before) || !keep(item)) continue;
    if (items.length === size) return { items, nextCursor: String(last) };
    items.push(item);
    last = seq;
  }
  return { items };
}

const grantMatches = (grant: StandingGrant, query: StandingGrantQuery): boolean =>
  (query.accountId === undefined || grant.accountId === query.accountId) &&
  (query.userId === undefined || grant.userId === query.userId) &&
  (query.sessionId === undefined || grant.sessionId === query.sessionId) &&
  (query.toolName === undefined || grant.toolName === query.toolName) &&
  (query.includeInactive === true || isActiveGrant(grant, query.now));

/**
 * Standing grants and the audit log in this process: grants by id and by account, bounded by the
 * standing-grant quotas (inactive grants dropped first); audit records per account, dropped by
 * age and count, oldest first.
 */
export function createMemoryExtras(quotas: ApprovalQuotas, now: () => number): MemoryExtras {
  type Entry<T> = { seq: number; item: T };
  let seq = 0;
  const grants = new Map<string, Entry<StandingGrant>>();
  const grantsByAccount = new Map<string, Map<string, Entry<StandingGrant>>>();
  const audit = createMemoryAuditLog(quotas.audit, now);

  const dropGrant = (id: string): void => {
    const found = grants.get(id);
    if (!found) return;
    grants.delete(id);
    const mine = grantsByAccount.get(found.item.accountId);
    mine?.delete(id);
    if (mine?.size === 0) grantsByAccount.delete(found.item.accountId);
  };
  /** Drops inactive grants of `scope` (one account's, or all) until `fits`. */
  const dropInactive = (scope: Map<string, Entry<StandingGrant>>, fits: () => boolean): void => {
    const at = now();
    for (const [id, { item }] of [...scope]) {
      if (fits()) return;
      if (!isActiveGrant(item, at)) dropGrant(id);
    }
  };

  return {
    async saveStandingGrant(grant) {
      dropGrant(grant.id);
      const mine = grantsByAccount.get(grant.accountId) ?? new Map<string, Entry<StandingGrant>>();
      const accountFits = (): boolean => mine.size + 1 <= quotas.standingGrants.perAccount;
      if (!accountFits()) dropInactive(mine, accountFits);
      if (!accountFits()) throw approvalQuotaExceeded('account', 'standing grants');
      const totalFits = (): boolean => grants.size + 1 <= quotas.standingGrants.total;
      if (!totalFits()) dropInactive(grants, totalFits);
      if (!totalFits()) throw approvalQuotaExceeded('server', 'standing grants');
      seq += 1;
      const entry = { seq, item: Object.freeze(structuredClone(grant)) };
      grants.set(grant.id, entry);
      mine.set(grant.id, entry);
      grantsByAccount.set(grant.accountId, mine);
    },
    async getStandingGrant(id) {
      return grants.get(id)?.item;
    },
    async findStandingGrants({ accountId, toolName, now: at }) {
      const found: StandingGrant[] = [];
      for (const { item } of grantsByAccount.get(accountId)?.values() ?? [])
        if (item.toolName === toolName && isActiveGrant(item, at)) found.push(item);
      return found;
    },
    async listStandingGrants(query) {
      const scope =
        query.accountId === undefined
          ? grants
          : (grantsByAccount.get(query.accountId) ?? new Map());
      return pageOf(
        [...scope.values()],
        (grant) => grantMatches(grant, query),
        query.limit,
        query.cursor,
      );
    },
    async revokeStandingGrant(id, revokedAt) {
      const found = grants.get(id);
      if (!found || found.item.revokedAt !== undefined) return undefined;
      const revoked = Object.freeze({ ...found.item, revokedAt });
      const entry = { seq: found.seq, item: revoked };
      grants.set(id, entry);
      grantsByAccount.get(revoked.accountId)?.set(id, entry);
      return revoked;
    },
    async appendAudit(entry) {
      audit.append(entry);
    },
    async listAudit(query) {
      return audit.list(query);
    },
  };
}
