import { checkOptions } from '../../errors/check-options.js';
import { KsadkError } from '../../errors/ksadk-error.js';

/** Limits of one account, one session, or the whole store. */
export interface ApprovalQuota {
  /** Open records (pending, approved or rejected-but-unreported) at most. */
  readonly maxRecords: number;
  /** Total argument size of those records, in characters. */
  readonly maxChars: number;
}

/** The quota options every KsADK approval store takes, each limit optional. */
export interface ApprovalQuotaOptions {
  /** Per session. @default 100 records, 16 MiB */
  perSession?: Partial<ApprovalQuota>;
  /** Per account (all its sessions). @default 1000 records, 64 MiB */
  perAccount?: Partial<ApprovalQuota>;
  /** The whole store. @default 50000 records, 512 MiB */
  total?: Partial<ApprovalQuota>;
  /** Standing grants and rejections kept (active ones; expired and revoked ones go first). */
  standingGrants?: Partial<StandingGrantQuota>;
  /** How long audit records are kept, and how many. */
  audit?: Partial<AuditRetention>;
}

/** Limits on standing grants. */
export interface StandingGrantQuota {
  /** Per account. @default 1000 */
  readonly perAccount: number;
  /** The whole store. @default 100000 */
  readonly total: number;
}

/**
 * The audit log's retention: records older than `retentionMs` are dropped, and past `perAccount`
 * (or `total`) records the oldest are dropped first — of that account (or of the whole log).
 */
export interface AuditRetention {
  /** @default 90 days */
  readonly retentionMs: number;
  /** @default 100000 */
  readonly perAccount: number;
  /** @default 1000000 */
  readonly total: number;
}

/** An approval store's quotas, every limit resolved. */
export interface ApprovalQuotas {
  readonly perSession: ApprovalQuota;
  readonly perAccount: ApprovalQuota;
  readonly total: ApprovalQuota;
  readonly standingGrants: StandingGrantQuota;
  readonly audit: AuditRetention;
}

/** The default quotas of {@link createInMemoryApprovalStore}. */
export const DEFAULT_APPROVAL_QUOTAS = Object.freeze({
  perSession: Object.freeze({ maxRecords: 100, maxChars: 16 * 1024 * 1024 }),
  perAccount: Object.freeze({ maxRecords: 1000, maxChars: 64 * 1024 * 1024 }),
  total: Object.freeze({ maxRecords: 50_000, maxChars: 512 * 1024 * 1024 }),
  standingGrants: Object.freeze({ perAccount: 1000, total: 100_000 }),
  audit: Object.freeze({
    retentionMs: 90 * 24 * 60 * 60 * 1000,
    perAccount: 100_000,
    total: 1_000_000,
  }),
});

const atLeastOne = (value: number | undefined, fallback: number): number =>
  Math.max(1, Math.floor(value ?? fallback));

const quotaOf = (
  given: Partial<ApprovalQuota> | undefined,
  fallback: ApprovalQuota,
): ApprovalQuota => ({
  maxRecords: Math.max(1, given?.maxRecords ?? fallback.maxRecords),
  maxChars: Math.max(1, given?.maxChars ?? fallback.maxChars),
});

/**
 * An approval store's quota options checked and resolved, as every KsADK approval store does it
 * (for authors of other stores): each of `perSession`, `perAccount` and `total` may hold only
 * `maxRecords` and `maxChars` (anything else is refused, naming `factory` and the scope); a limit
 * left out takes its {@link DEFAULT_APPROVAL_QUOTAS} value, and every limit is at least 1.
 *
 * @param factory - The store's factory, named in errors (`'createRedisApprovalStore'`).
 * @throws {KsadkError} `invalid_config` for an unknown key in a quota.
 *
 * @example
 * ```ts
 * const quotas = resolveApprovalQuotas({ perSession: { maxRecords: 20 } }, 'createKvApprovalStore');
 * // quotas.perSession: { maxRecords: 20, maxChars: 16777216 }
 * // quotas.perAccount: DEFAULT_APPROVAL_QUOTAS.perAccount's limits
 * ```
 */
export function resolveApprovalQuotas(
  options: ApprovalQuotaOptions,
  factory: string,
): ApprovalQuotas {
  for (const scope of ['perSession', 'perAccount', 'total'] as const)
    checkOptions(options[scope], { maxRecords: true, maxChars: true }, `${factory}({ ${scope} })`);
  checkOptions(
    options.standingGrants,
    { perAccount: true, total: true },
    `${factory}({ standingGrants })`,
  );
  checkOptions(
    options.audit,
    { retentionMs: true, perAccount: true, total: true },
    `${factory}({ audit })`,
  );
  const grants = DEFAULT_APPROVAL_QUOTAS.standingGrants;
  const audit = DEFAULT_APPROVAL_QUOTAS.audit;
  return {
    perSession: quotaOf(options.perSession, DEFAULT_APPROVAL_QUOTAS.perSession),
    perAccount: quotaOf(options.perAccount, DEFAULT_APPROVAL_QUOTAS.perAccount),
    total: quotaOf(options.total, DEFAULT_APPROVAL_QUOTAS.total),
    standingGrants: {
      perAccount: atLeastOne(options.standingGrants?.perAccount, grants.perAccount),
      total: atLeastOne(options.standingGrants?.total, grants.total),
    },
    audit: {
      retentionMs: atLeastOne(options.audit?.retentionMs, audit.retentionMs),
      perAccount: atLeastOne(options.audit?.perAccount, audit.perAccount),
      total: atLeastOne(options.audit?.total, audit.total),
    },
  };
}

/**
 * The error every {@link ApprovalStore} throws when a request cannot fit: its session's, its
 * account's or the whole store's quota is full of requests that may not be dropped.
 *
 * @example
 * ```ts
 * throw approvalQuotaExceeded('account');
 * ```
 */
export function approvalQuotaExceeded(
  scope: 'session' | 'account' | 'server',
  what: 'requests' | 'standing grants' = 'requests',
): KsadkError {
  return new KsadkError(
    'approval_quota_exceeded',
    what === 'requests'
      ? `Too many approval requests are waiting in this ${scope}; decide or let the open ones expire first.`
      : `Too many standing grants are in force in this ${scope}; revoke some or let them expire first.`,
  );
}
