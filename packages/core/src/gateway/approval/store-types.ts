import type { RiskLevel } from '../../tool/policy.js';
import type { ApprovalAuditEntry } from './audit-entry.js';
import type { StandingGrant } from './standing-grant.js';
import type {
  ApprovalAuditQuery,
  ApprovalPage,
  ApprovalRequestQuery,
  StandingGrantQuery,
} from './store-queries.js';

/** Where an approval request is in its life. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'consumed';

/** One approval request and its decision, bound to one call. */
export interface ApprovalRecord {
  /** `appr_` + 32 hex characters. */
  readonly id: string;
  /** Hash of tool name, argument digest, account and session: what the decision is bound to. */
  readonly bindingKey: string;
  readonly toolName: string;
  /** SHA-256 of the canonical JSON of the validated arguments. */
  readonly argsDigest: string;
  /** The validated arguments, shown to the human deciding. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Size of the canonical JSON of `arguments`, in characters: what quotas count. */
  readonly argumentsChars: number;
  readonly accountId: string;
  /** The end user the call ran for (`''` when unknown). */
  readonly userId: string;
  readonly sessionId: string;
  readonly riskLevel: RiskLevel;
  readonly sideEffects: readonly string[];
  readonly status: ApprovalStatus;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds after which neither the request nor its grant is honoured. */
  readonly expiresAt: number;
  /** Epoch milliseconds of the decision, once decided. */
  readonly decidedAt?: number;
  /** The host's reason for the decision, if given. */
  readonly reason?: string;
  /**
   * Set on a grant the gateway re-issued for a call that stopped to ask the human a question
   * (`input_required`): the id of the approval it continues. The same call (same tool call id and
   * arguments), resumed with the answer, uses it without asking for approval again — once.
   */
  readonly continues?: string;
  /**
   * Epoch milliseconds by which a human must decide. Past it the request is resolved by its
   * expiry rule (`onExpiry`) when the call comes back; the record itself is kept until
   * `expiresAt` so that resolution, and a replay, can still be recognised. Absent: `expiresAt`.
   */
  readonly decideBy?: number;
  /** How the request resolves when its deadline passes undecided. @default 'reject' */
  readonly onExpiry?: 'reject' | 'approve';
  /** Why the call needs a decision, in words a human reads (the policy's answer). */
  readonly why?: string;
  /** The tool's own one-line summary of the call, when it gives one. */
  readonly summary?: string;
  /** The framework's tool call id, when it gave one. */
  readonly callId?: string;
  /** Whether a standing grant ("always allow") may be made from this request. */
  readonly standingAllowed?: boolean;
  /** Who decided (`account:<id>`, `user:<id>`, `admin`), once decided. */
  readonly decidedBy?: string;
  /** Arguments the human edited before approving: the call runs with exactly these. */
  readonly edited?: ApprovalEdit;
}

/** Arguments a human changed before approving, and their digest (what the grant binds). */
export interface ApprovalEdit {
  readonly arguments: Readonly<Record<string, unknown>>;
  /** SHA-256 of the canonical JSON of `arguments`. */
  readonly digest: string;
}

/** What a transition may set besides the status. A move to `consumed` drops `edited` with the arguments. */
export interface ApprovalTransitionPatch {
  readonly decidedAt?: number;
  readonly reason?: string;
  readonly decidedBy?: string;
  readonly edited?: ApprovalEdit;
}

/**
 * Persistence for approval requests. The in-memory default suits one process; implement
 * this over a shared database or cache to run several server instances. `transition` must be
 * atomic (compare-and-set): it is what makes a grant single-use.
 *
 * Quotas: `create` must keep each account and each session within its limits without ever
 * touching another account's records, and must never drop an approved, unexpired record. When
 * a record cannot fit it throws {@link KsadkError} `approval_quota_exceeded`.
 */
export interface ApprovalStore {
  /**
   * True when several processes (server instances) share this store. The gateway then refuses to
   * start without a configured signing secret (`KSADK_APPROVAL_SECRET`): a per-process random
   * secret would make grants issued by one instance worthless on the others.
   */
  readonly shared?: boolean;
  /** Releases what the store opened itself (connections); a store given a client leaves it open. */
  close?(): Promise<void>;
  /**
   * Saves a new record.
   * @throws {KsadkError} `approval_quota_exceeded` when the record's account or session (or the
   * whole store) is full of requests that may not be dropped.
   */
  create(record: ApprovalRecord): Promise<void>;
  /** The record with this id, if any (expired ones may be returned; callers check `expiresAt`). */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /**
   * The newest unexpired record with this binding key, whatever its status — a `consumed` one too:
   * it is the tombstone that tells a replayed call (same tool call id) that it already ran.
   */
  findOpen(bindingKey: string, now: number): Promise<ApprovalRecord | undefined>;
  /**
   * Atomically moves a record from `from` to `to`, applying `patch`. Returns the updated
   * record, or `undefined` when the record is missing or not in status `from`.
   *
   * A record moved to `consumed` stays until it expires as a tombstone: without its arguments
   * (`{}`, `argumentsChars` 0), counted in its quotas but dropped before any other record when
   * room is needed.
   */
  transition(
    id: string,
    from: ApprovalStatus,
    to: ApprovalStatus,
    patch?: ApprovalTransitionPatch,
  ): Promise<ApprovalRecord | undefined>;
  /**
   * Requests newest first (by creation), paged, narrowed by the query. A page may hold fewer than
   * `limit` items while more follow: go on while `nextCursor` is given.
   */
  listRequests(query: ApprovalRequestQuery): Promise<ApprovalPage<ApprovalRecord>>;
  /**
   * Saves a standing grant (or rejection). Past the account's (or the store's) quota, expired and
   * revoked grants of that account (or any) are dropped first; if it still cannot fit it throws.
   * @throws {KsadkError} `approval_quota_exceeded`
   */
  saveStandingGrant(grant: StandingGrant): Promise<void>;
  /** The grant with this id, if the store still holds it (revoked and expired ones too). */
  getStandingGrant(id: string): Promise<StandingGrant | undefined>;
  /**
   * The grants in force at `now` for one tool in one account — every session's and user's; the
   * gateway picks those that cover the call. At most the account's quota of them.
   */
  findStandingGrants(lookup: {
    readonly accountId: string;
    readonly toolName: string;
    readonly now: number;
  }): Promise<readonly StandingGrant[]>;
  /** Grants newest first, paged, narrowed by the query. */
  listStandingGrants(query: StandingGrantQuery): Promise<ApprovalPage<StandingGrant>>;
  /**
   * Marks a grant revoked at `revokedAt` (compare-and-set: only one revocation wins). Returns the
   * revoked grant, or `undefined` when it is missing or already revoked.
   */
  revokeStandingGrant(id: string, revokedAt: number): Promise<StandingGrant | undefined>;
  /**
   * Appends an audit record. Records are never changed; the store drops them only by its
   * retention (older than `audit.retentionMs`, or past the per-account or total count, oldest first).
   */
  appendAudit(entry: ApprovalAuditEntry): Promise<void>;
  /** Audit records newest first, paged. */
  listAudit(query: ApprovalAuditQuery): Promise<ApprovalPage<ApprovalAuditEntry>>;
}
