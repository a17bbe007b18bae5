/** What a tenant-scoped record is filed under: its account, user, session and tool. */
export interface ScopedRecord {
  readonly accountId: string;
  /** `''` when the call carried no user. */
  readonly userId: string;
  readonly sessionId: string;
  readonly toolName: string;
}

/** A listing's scope filters; every field given narrows the selection. */
export interface ScopeFilter {
  readonly accountId?: string | undefined;
  /** Records of this user, or of calls that carried no user. */
  readonly userId?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly toolName?: string | undefined;
}

/** Whether `record` is inside the filter's account, user, session and tool. */
export function inScope(record: ScopedRecord, filter: ScopeFilter): boolean {
  if (filter.accountId !== undefined && record.accountId !== filter.accountId) return false;
  if (filter.userId !== undefined && record.userId !== '' && record.userId !== filter.userId)
    return false;
  if (filter.sessionId !== undefined && record.sessionId !== filter.sessionId) return false;
  return filter.toolName === undefined || record.toolName === filter.toolName;
}
