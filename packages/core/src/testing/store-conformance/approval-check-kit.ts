import { KsadkError } from '../../errors/ksadk-error.js';
import type { ApprovalRecord, ApprovalStore } from '../../gateway/approval/store.js';
import type { ApprovalPage } from '../../gateway/approval/store-queries.js';
import { approvalRecord, type RecordOverrides } from './approval-record-fixture.js';
import type { ApprovalStoreQuotas } from './approval-store-factory.js';
import type { CheckContext } from './conformance-run.js';
import type { StoreCheck } from './store-check.js';

/** Makes one approval-store check (a fresh store with the check's quotas). */
export type ApprovalCheck = StoreCheck<ApprovalStore, ApprovalStoreQuotas>;

/**
 * How long the short-lived records of the expiry checks live, and how long checks wait. Long
 * enough that a store slowed by a loaded machine (a create taking a few hundred milliseconds)
 * still sees its record open before the wait.
 */
export const SHORT_TTL_MS = 1_000;
export const PAST_SHORT_TTL_MS = 1_250;

/** Whether `error` is KsADK's `approval_quota_exceeded`. */
export const isQuotaError = (error: unknown): boolean =>
  KsadkError.isInstance(error) && error.code === 'approval_quota_exceeded';

/** Creates records in order; returns them. */
export async function createAll(
  store: ApprovalStore,
  list: readonly RecordOverrides[],
): Promise<ApprovalRecord[]> {
  const made: ApprovalRecord[] = [];
  for (const overrides of list) {
    const record = approvalRecord(overrides);
    await store.create(record);
    made.push(record);
  }
  return made;
}

/** Creates `record` and reports whether it was refused with `approval_quota_exceeded`. */
export async function refused(store: ApprovalStore, record: ApprovalRecord): Promise<boolean> {
  try {
    await store.create(record);
    return false;
  } catch (error) {
    if (isQuotaError(error)) return true;
    throw error;
  }
}

/** Whether each record is still in the store. */
export const present = async (
  store: ApprovalStore,
  records: readonly ApprovalRecord[],
): Promise<boolean[]> =>
  Promise.all(records.map(async (record) => (await store.get(record.id)) !== undefined));

/** Approves a pending record now. */
export const approve = (store: ApprovalStore, record: ApprovalRecord) =>
  store.transition(record.id, 'pending', 'approved', { decidedAt: Date.now() });

/**
 * Every item of a listing, page after page (`list(cursor)`), at most `maxPages` pages. Records a
 * failure for a page over `limit`, a repeated cursor, or a listing that does not end.
 */
export async function pageThrough<T>(
  c: CheckContext,
  what: string,
  limit: number,
  list: (cursor: string | undefined) => Promise<ApprovalPage<T>>,
  maxPages = 50,
): Promise<T[]> {
  const items: T[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const got = await list(cursor);
    c.expect(
      got.items.length <= limit,
      `${what}: a page of ${got.items.length} over the limit ${limit}`,
    );
    items.push(...got.items);
    if (got.nextCursor === undefined) return items;
    c.expect(typeof got.nextCursor === 'string', `${what}: the cursor is not a string`);
    if (cursors.has(got.nextCursor)) {
      c.expect(false, `${what}: the cursor ${JSON.stringify(got.nextCursor)} came back twice`);
      return items;
    }
    cursors.add(got.nextCursor);
    cursor = got.nextCursor;
  }
  c.expect(false, `${what}: still more after ${maxPages} pages`);
  return items;
}

/** The ids of `items`, in order. */
export const idsOf = (items: readonly { readonly id: string }[]): string[] =>
  items.map((item) => item.id);
