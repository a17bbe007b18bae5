import type { ApprovalPrincipal } from '@ksadk/core';

/** `--account`, `--user`, `--admin` as the commands take them. */
export interface PrincipalFlags {
  readonly account?: string;
  readonly user?: string;
  readonly admin?: boolean;
}

/** The principal the flags name, or a usage problem. */
export function principalOf(flags: PrincipalFlags): ApprovalPrincipal | { problem: string } {
  if (flags.admin) {
    if (flags.account !== undefined || flags.user !== undefined)
      return { problem: '--admin is every account: give it without --account and --user.' };
    return { admin: true };
  }
  return {
    accountId: flags.account ?? '',
    ...(flags.user !== undefined ? { userId: flags.user } : {}),
  };
}

/** How a principal is named in the output. */
export const describePrincipal = (principal: ApprovalPrincipal): string =>
  'admin' in principal
    ? 'admin (every account)'
    : `account ${principal.accountId || '(default)'}${principal.userId !== undefined ? `, user ${principal.userId}` : ''}`;
