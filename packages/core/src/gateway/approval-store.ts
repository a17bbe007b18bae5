import type { RiskLevel } from '../tool/policy.js';

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
  readonly accountId: string;
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
}

/**
 * Persistence for approval requests. The in-memory default suits one process; implement
 * this over a shared database or cache to run several server instances. `transition` must be
 * atomic (compare-and-set): it is what makes a grant single-use.
 */
export interface ApprovalStore {
  /** Saves a new record. */
  create(record: ApprovalRecord): Promise<void>;
  /** The record with this id, if any (expired ones may be returned; callers check `expiresAt`). */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** The newest unexpired record with this binding key whose status is not `consumed`. */
  findOpen(bindingKey: string, now: number): Promise<ApprovalRecord | undefined>;
  /**
   * Atomically moves a record from `from` to `to`, applying `patch`. Returns the updated
   * record, or `undefined` when the record is missing or not in status `from`.
   */
  transition(
    id: string,
    from: ApprovalStatus,
    to: ApprovalStatus,
    patch?: { decidedAt?: number; reason?: string },
  ): Promise<ApprovalRecord | undefined>;
}

/** Options for {@link createInMemoryApprovalStore}. */
export interface InMemoryApprovalStoreOptions {
  /** Records kept at most; expired ones go first, then the oldest. @default 10000 */
  maxRecords?: number;
}

/**
 * The default {@link ApprovalStore}: a bounded map in this process.
 *
 * @example
 * ```ts
 * const gateway = createToolGateway({ approvalStore: createInMemoryApprovalStore({ maxRecords: 1000 }) });
 * ```
 */
export function createInMemoryApprovalStore(
  options: InMemoryApprovalStoreOptions = {},
): ApprovalStore {
  const maxRecords = Math.max(1, options.maxRecords ?? 10_000);
  const records = new Map<string, ApprovalRecord>();
  const byBinding = new Map<string, string>();

  const evict = (): void => {
    if (records.size < maxRecords) return;
    const now = Date.now();
    for (const [id, record] of records) {
      if (record.expiresAt <= now || record.status === 'consumed') remove(id);
    }
    while (records.size >= maxRecords) {
      const oldest = records.keys().next().value;
      if (oldest === undefined) break;
      remove(oldest);
    }
  };
  const remove = (id: string): void => {
    const record = records.get(id);
    if (!record) return;
    records.delete(id);
    if (byBinding.get(record.bindingKey) === id) byBinding.delete(record.bindingKey);
  };

  return {
    async create(record) {
      evict();
      records.set(record.id, record);
      byBinding.set(record.bindingKey, record.id);
    },
    async get(id) {
      return records.get(id);
    },
    async findOpen(bindingKey, now) {
      const id = byBinding.get(bindingKey);
      const record = id === undefined ? undefined : records.get(id);
      if (!record || record.status === 'consumed' || record.expiresAt <= now) return undefined;
      return record;
    },
    async transition(id, from, to, patch = {}) {
      const record = records.get(id);
      if (!record || record.status !== from) return undefined;
      const next: ApprovalRecord = Object.freeze({ ...record, ...patch, status: to });
      records.set(id, next);
      return next;
    },
  };
}
