import type { ApprovalAuditEntry } from './audit-entry.js';
import type { AuditRetention } from './quotas.js';
import { pageSize } from './record-filters.js';
import type { ApprovalAuditQuery, ApprovalPage } from './store-queries.js';

/** One stored record; `gone` once retention dropped it (the whole log skips it, then forgets it). */
interface Stored {
  readonly seq: number;
  readonly item: ApprovalAuditEntry;
  gone: boolean;
}

/** Oldest-first records with a moving head: dropping from the front costs O(1). */
class Queue {
  items: Stored[] = [];
  head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  front(): Stored | undefined {
    return this.items[this.head];
  }
  shift(): Stored | undefined {
    const first = this.items[this.head];
    if (first === undefined) return undefined;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return first;
  }
}

/** The in-memory audit log: per account and in all, trimmed by age and count on every append. */
export interface MemoryAuditLog {
  append(entry: ApprovalAuditEntry): void;
  list(query: ApprovalAuditQuery): ApprovalPage<ApprovalAuditEntry>;
}

/** A page of `queue`, newest first, of the records `keep` selects. */
function pageOf(
  queue: Queue,
  keep: (stored: Stored) => boolean,
  limit: number,
  cursor: string | undefined,
): ApprovalPage<ApprovalAuditEntry> {
  const before = cursor === undefined ? Infinity : Number(cursor);
  const size = pageSize(limit);
  const items: ApprovalAuditEntry[] = [];
  let last = 0;
  for (let index = queue.items.length - 1; index >= queue.head; index -= 1) {
    const stored = queue.items[index]!;
    if (!(stored.seq < before) || !keep(stored)) continue;
    if (items.length === size) return { items, nextCursor: String(last) };
    items.push(stored.item);
    last = stored.seq;
  }
  return { items };
}

/**
 * Creates the log. An account past its count, or records past their age, are dropped from that
 * account only; past the log's total the oldest records of the whole log go. Records dropped by
 * their account's count no longer count toward the total, so one account's volume never pushes
 * another's records out.
 */
export function createMemoryAuditLog(retention: AuditRetention, now: () => number): MemoryAuditLog {
  let seq = 0;
  let live = 0;
  let gone = 0;
  let all = new Queue();
  const byAccount = new Map<string, Queue>();

  const drop = (stored: Stored): void => {
    stored.gone = true;
    live -= 1;
    gone += 1;
  };
  const trim = (accountId: string): void => {
    const oldest = now() - retention.retentionMs;
    const mine = byAccount.get(accountId);
    while (
      mine &&
      (mine.size > retention.perAccount || (mine.front()?.item.at ?? Infinity) < oldest)
    )
      drop(mine.shift()!);
    for (;;) {
      const first = all.front();
      if (!first) break;
      if (!first.gone && live <= retention.total && first.item.at >= oldest) break;
      all.shift();
      if (first.gone) {
        gone -= 1;
        continue;
      }
      drop(first);
      gone -= 1;
      // The oldest record of the log is its account's oldest too.
      const theirs = byAccount.get(first.item.accountId);
      if (theirs?.front() === first) theirs.shift();
      if (theirs?.size === 0) byAccount.delete(first.item.accountId);
    }
    if (mine?.size === 0) byAccount.delete(accountId);
    if (gone > 1024 && gone > live) {
      // Records dropped by their account's count pile up behind older ones: forget them.
      const kept = new Queue();
      kept.items = all.items.slice(all.head).filter((stored) => !stored.gone);
      all = kept;
      gone = 0;
    }
  };

  return {
    append(entry) {
      // The gateway hands over fresh frozen records; anything else is copied.
      const item = Object.isFrozen(entry) ? entry : Object.freeze(structuredClone(entry));
      seq += 1;
      const stored: Stored = { seq, item, gone: false };
      live += 1;
      all.items.push(stored);
      let mine = byAccount.get(entry.accountId);
      if (!mine) {
        mine = new Queue();
        byAccount.set(entry.accountId, mine);
      }
      mine.items.push(stored);
      trim(entry.accountId);
    },
    list(query) {
      const since = query.since ?? -Infinity;
      const queue = query.accountId === undefined ? all : byAccount.get(query.accountId);
      if (!queue) return { items: [] };
      return pageOf(
        queue,
        (stored) => !stored.gone && stored.item.at >= since,
        query.limit,
        query.cursor,
      );
    },
  };
}
