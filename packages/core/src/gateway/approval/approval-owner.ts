import { getInvocationContextOrEmpty } from '../../context/invocation-context.js';
import { KsadkError } from '../../errors/ksadk-error.js';
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

/**
 * The given principal, checked, or the current invocation's account and user. Anything but
 * `{ accountId: string, userId?: string }` or `{ admin: true }` is refused, so a malformed
 * principal can never widen a listing to every account.
 *
 * @throws {KsadkError} `invalid_arguments` for a malformed principal.
 */
export function principalOf(given: ApprovalPrincipal | undefined): ApprovalPrincipal {
  if (given === undefined) {
    const context = getInvocationContextOrEmpty();
    return {
      accountId: context.accountId ?? '',
      ...(context.userId ? { userId: context.userId } : {}),
    };
  }
  const shape = given as { admin?: unknown; accountId?: unknown; userId?: unknown };
  if (typeof shape === 'object' && shape !== null) {
    if ('admin' in shape) {
      if (shape.admin === true && !('accountId' in shape)) return { admin: true };
    } else if (
      typeof shape.accountId === 'string' &&
      (shape.userId === undefined || typeof shape.userId === 'string')
    ) {
      return {
        accountId: shape.accountId,
        ...(shape.userId !== undefined ? { userId: shape.userId } : {}),
      };
    }
  }
  throw new KsadkError(
    'invalid_arguments',
    'principal must be { accountId: string, userId?: string } or { admin: true }.',
  );
}

/** Whether `principal` may see and decide `record`. */
export function owns(principal: ApprovalPrincipal, record: ApprovalRecord): boolean {
  if ('admin' in principal) return principal.admin === true;
  if (record.accountId !== principal.accountId) return false;
  return (
    principal.userId === undefined || record.userId === '' || record.userId === principal.userId
  );
}

/** How a principal is named in audit records and decisions. */
export function principalLabel(principal: ApprovalPrincipal): string {
  if ('admin' in principal) return 'admin';
  return principal.userId !== undefined
    ? `user:${principal.userId}`
    : `account:${principal.accountId}`;
}
