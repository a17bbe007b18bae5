import type { ApprovalRecord, ApprovalStore } from '@ksadk/core';
import { pageSize, requestMatches } from '@ksadk/core/adapter';
import { recordOf } from './approval-record-hash.js';
import {
  defineCommands,
  filterArgs,
  keyHash,
  type RedisStoreContext,
  scanBound,
  scoreCursor,
} from './redis-store-context.js';
import { guarded } from './store-error.js';

/**
 * KEYS: the index to read (a ZSET of record ids by insertion order), `B all`.
 * ARGV: max score ('+inf' or '(<seq>'), scan bound, limit, now, status ('' = any), hasUser,
 * userId, hasSession, sessionId, hasTool, toolName ('1'/'0' and the value).
 * Reads at most `scan` ids newest first and returns `{ cursor | false, hash, hash, … }`: the
 * HGETALL of each record that matches, at most `limit`. The cursor is set when more may follow
 * (the score of the last record returned, or of the last id read). Records written before the
 * listing fields existed are returned unfiltered; the caller filters them.
 */
const LIST_SCRIPT = `
local scope, all = KEYS[1], KEYS[2]
local base = string.sub(all, 1, #all - 3)
local scan, limit, now, status = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local ids = redis.call('ZREVRANGEBYSCORE', scope, ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', 0, scan)
local out = { false }
local count, last = 0, false
for i = 1, #ids, 2 do
  local key = base .. 'rec:' .. ids[i]
  local f = redis.call('HMGET', key, 'status', 'tool', 'user', 'sess', 'dl')
  local keep = f[1] ~= false
  if keep and f[2] then
    if ARGV[6] == '1' and f[3] ~= '' and f[3] ~= ARGV[7] then
      keep = false
    elseif ARGV[8] == '1' and f[4] ~= ARGV[9] then
      keep = false
    elseif ARGV[10] == '1' and f[2] ~= ARGV[11] then
      keep = false
    elseif status ~= '' then
      local listed = f[1]
      if listed == 'pending' and tonumber(f[5]) <= now then
        listed = 'expired'
      end
      keep = listed == status
    end
  end
  if keep then
    if count == limit then
      out[1] = last
      return out
    end
    count = count + 1
    last = ids[i + 1]
    out[#out + 1] = redis.call('HGETALL', key)
  end
end
if #ids == scan * 2 then
  out[1] = ids[#ids]
end
return out
`;

interface ListCommands {
  ksadkApprovalListV1(...args: string[]): Promise<[string | null, ...string[][]]>;
}

/**
 * {@link ApprovalStore.listRequests} on Redis: one script call per page over the narrowest index
 * that holds every candidate — the session's or the account's records (their undecided or
 * tombstone index when the status says so), or every record for a listing across accounts.
 */
export function redisRequestList(context: RedisStoreContext): ApprovalStore['listRequests'] {
  const { client, base, timeoutMs } = context;
  defineCommands(client, { ksadkApprovalListV1: { numberOfKeys: 2, lua: LIST_SCRIPT } });
  const commands = client as unknown as ListCommands;

  /** The index to read for a query. */
  const scopeOf = (query: Parameters<ApprovalStore['listRequests']>[0]): string => {
    if (query.accountId === undefined) return `${base}all`;
    const key =
      query.sessionId === undefined
        ? `${base}acct:${keyHash([query.accountId])}`
        : `${base}sess:${keyHash([query.accountId, query.sessionId])}`;
    if (query.status === 'pending' || query.status === 'expired' || query.status === 'rejected')
      return `${key}:u`;
    return query.status === 'consumed' ? `${key}:t` : key;
  };

  return async (query) => {
    const max = scoreCursor(query.cursor);
    if (max === undefined) return { items: [] };
    const limit = pageSize(query.limit);
    const [cursor, ...hashes] = await guarded('list approval requests', timeoutMs, () =>
      commands.ksadkApprovalListV1(
        scopeOf(query),
        `${base}all`,
        max,
        String(scanBound(limit)),
        String(limit),
        String(query.now),
        query.status ?? '',
        ...filterArgs(query.userId),
        ...filterArgs(query.sessionId),
        ...filterArgs(query.toolName),
      ),
    );
    const items: ApprovalRecord[] = [];
    for (const fields of hashes) {
      const record = recordOf(fields);
      if (record && requestMatches(record, query)) items.push(record);
    }
    return cursor === null ? { items } : { items, nextCursor: cursor };
  };
}
