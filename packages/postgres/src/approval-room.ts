import type { ApprovalQuota } from '@ksadk/core/adapter';

/** What a quota bucket (a session or an account) holds. */
export interface BucketUsage {
  readonly records: number;
  readonly chars: number;
}

/** A record that may be dropped for room, with its size. */
export interface RoomCandidate {
  readonly id: string;
  readonly chars: number;
}

/** The records to drop (in order) and whether the new one then fits. */
export interface RoomPlan {
  readonly drop: readonly string[];
  readonly fits: boolean;
}

/**
 * Which records to drop so a new record of `incoming` characters fits in a bucket, given the
 * bucket's usage and its droppable records in the order core's in-memory store drops them
 * (expired first, then tombstones, then undecided requests, each oldest first; approved,
 * unexpired grants are never candidates). An empty bucket takes anything within the character
 * quota; a bucket that has room drops nothing.
 */
export function planRoom(
  usage: BucketUsage,
  candidates: readonly RoomCandidate[],
  quota: ApprovalQuota,
  incoming: number,
): RoomPlan {
  if (usage.records === 0) return { drop: [], fits: incoming <= quota.maxChars };
  let { records, chars } = usage;
  const fits = (): boolean => records + 1 <= quota.maxRecords && chars + incoming <= quota.maxChars;
  const drop: string[] = [];
  for (const candidate of candidates) {
    if (fits()) break;
    drop.push(candidate.id);
    records -= 1;
    chars -= candidate.chars;
  }
  return { drop, fits: fits() };
}
