import { getInvocationContextOrEmpty } from '../../context/invocation-context.js';
import { echoValue } from '../../util/sanitize-message.js';
import type { ApprovalPrincipal } from '../gateway-types.js';
import type { ApprovalRecord } from './store.js';

/** What approval ids look like. */
export const APPROVAL_ID = /^appr_[0-9a-f]{32}$/;

/** An approval id as it may appear in an error: real ids whole, anything else a short clean prefix. */
export function idForMessage(id: unknown): string {
  if (typeof id !== 'string') return '(not a string)';
  return APPROVAL_ID.test(id) ? id : JSON.stringify(echoValue(id, 40));
}

/** The given principal, or the current invocation's account and user. */
export function principalOf(given: ApprovalPrincipal | undefined): ApprovalPrincipal {
  if (given) return given;
  const context = getInvocationContextOrEmpty();
  return {
    accountId: context.accountId ?? '',
    ...(context.userId ? { userId: context.userId } : {}),
  };
}

/** Whether `principal` may see and decide `record`. */
export function owns(principal: ApprovalPrincipal, record: ApprovalRecord): boolean {
  if ('admin' in principal) return principal.admin === true;
  if (record.accountId !== principal.accountId) return false;
  return (
    principal.userId === undefined || record.userId === '' || record.userId === principal.userId
  );
}
