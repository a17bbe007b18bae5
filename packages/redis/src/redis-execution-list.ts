import type { ExecutionQuery, ExecutionRecord, ExecutionStore } from '@ksadk/core';
import { executionMatches, executionPageSize } from '@ksadk/core/adapter';
import { executionOf } from './execution-record-hash.js';
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
 * KEYS: the index to read (a ZSET of records by insertion order), meta.
 * ARGV: max score ('+inf' or '(<seq>'), scan bound, limit, now, then hasUser, userId, hasSession,
 * sessionId, hasTool, toolName ('1'/'0' and the value), since ('' = any), outcome ('' = any).
 * Reads at most `scan` records newest first and returns `{ cursor | false, hash, hash, … }`: the
 * HGETALL of each unexpired record that matches, at most `limit`. The cursor is set when more may
 * follow (the score of the last record returned, or of the last one read).
 */
const LIST_SCRIPT = `
local base = string.sub(KEYS[2], 1, #KEYS[2] - 4)
local scan, limit, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local since, outcome = tonumber(ARGV[11]), ARGV[12]
local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', 0, scan)
local out = { false }
local count, last = 0, false
for i = 1, #ids, 2 do
  local key = base .. 'rec:' .. ids[i]
  local f = redis.call('HMGET', key, 'status', 'tool', 'user', 'sess', 'start', 'dl', 'exp')
  local keep = f[1] ~= false and tonumber(f[7]) > now
  if keep then
    if ARGV[5] == '1' and f[3] ~= '' and f[3] ~= ARGV[6] then
      keep = false
    elseif ARGV[7] == '1' and f[4] ~= ARGV[8] then
      keep = false
    elseif ARGV[9] == '1' and f[2] ~= ARGV[10] then
      keep = false
    elseif since and tonumber(f[5]) < since then
      keep = false
    elseif outcome ~= '' then
      local listed = f[1]
      if listed == 'started' then
        listed = tonumber(f[6]) > now and 'running' or 'unknown'
      end
      keep = listed == outcome
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
  ksadkExecutionListV1(...args: string[]): Promise<[string | null, ...string[][]]>;
}

/**
 * {@link ExecutionStore.list} on Redis: one script call per page over the narrowest index that
 * holds every candidate — the session's or the account's records, or every record for a listing
 * across accounts — newest first, filtered in the script and again by core's `executionMatches`.
 */
export function redisExecutionList(context: RedisStoreContext): ExecutionStore['list'] {
  const { client, base, timeoutMs } = context;
  defineCommands(client, { ksadkExecutionListV1: { numberOfKeys: 2, lua: LIST_SCRIPT } });
  const commands = client as unknown as ListCommands;

  /** The index to read for a query. */
  const indexOf = (query: ExecutionQuery): string =>
    query.accountId === undefined
      ? `${base}all`
      : query.sessionId === undefined
        ? `${base}acct:${keyHash([query.accountId])}`
        : `${base}sess:${keyHash([query.accountId, query.sessionId])}`;

  return async (query) => {
    const max = scoreCursor(query.cursor);
    if (max === undefined) return { items: [] };
    const limit = executionPageSize(query.limit);
    const [cursor, ...hashes] = await guarded('list call records', timeoutMs, () =>
      commands.ksadkExecutionListV1(
        indexOf(query),
        `${base}meta`,
        max,
        String(scanBound(limit)),
        String(limit),
        String(query.now),
        ...filterArgs(query.userId),
        ...filterArgs(query.sessionId),
        ...filterArgs(query.toolName),
        query.since === undefined ? '' : String(query.since),
        query.outcome ?? '',
      ),
    );
    const items: ExecutionRecord[] = [];
    for (const fields of hashes) {
      const record = executionOf(fields);
      if (record && executionMatches(record, query)) items.push(record);
    }
    return cursor === null ? { items } : { items, nextCursor: cursor };
  };
}
