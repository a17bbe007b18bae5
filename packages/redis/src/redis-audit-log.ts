import type { ApprovalAuditEntry, ApprovalStore } from '@ksadk/core';
import { type AuditRetention, pageSize } from '@ksadk/core/adapter';
import { defineCommands, keyHash, type RedisStoreContext } from './redis-store-context.js';
import { guarded } from './store-error.js';

/**
 * KEYS: `B audit` (the whole log), the account's `B audit:<h>`.
 * ARGV: at (whole ms), entry (JSON), account h, age cutoff (whole ms; '' = none), perAccount, total.
 * Appends the record to both streams under one id whose time is `at`, or the log's last time when
 * `at` is older (ids only grow). Then, at most 100 each, drops the account's oldest records past
 * its count, the log's records older than the cutoff, and the log's oldest past the total —
 * from both streams, so what one account drops by its own count never counts against the rest.
 * Returns the id.
 */
const APPEND_SCRIPT = `
local log, mine = KEYS[1], KEYS[2]
local base = string.sub(log, 1, #log - 5)
local ms = ARGV[1]
-- Whole numbers as strings (no leading zeros): compared without turning them into doubles.
local function greater(a, b)
  if #a ~= #b then
    return #a > #b
  end
  return a > b
end
if redis.call('EXISTS', log) == 1 then
  local info = redis.call('XINFO', 'STREAM', log)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      local last = string.match(info[i + 1], '^(%d+)')
      if greater(last, ms) then
        ms = last
      end
    end
  end
end
local id = redis.call('XADD', log, ms .. '-*', 'e', ARGV[2], 'a', ARGV[3])
redis.call('XADD', mine, id, 'e', ARGV[2])

local touched = { [ARGV[3]] = true }
local function dropFromLog(entries)
  for _, entry in ipairs(entries) do
    local fields = entry[2]
    for i = 1, #fields, 2 do
      if fields[i] == 'a' then
        redis.call('XDEL', base .. 'audit:' .. fields[i + 1], entry[1])
        touched[fields[i + 1]] = true
      end
    end
    redis.call('XDEL', log, entry[1])
  end
end

local excess = redis.call('XLEN', mine) - tonumber(ARGV[5])
if excess > 0 then
  for _, entry in ipairs(redis.call('XRANGE', mine, '-', '+', 'COUNT', math.min(excess, 100))) do
    redis.call('XDEL', log, entry[1])
    redis.call('XDEL', mine, entry[1])
  end
end
if ARGV[4] ~= '' then
  dropFromLog(redis.call('XRANGE', log, '-', '(' .. ARGV[4] .. '-0', 'COUNT', 100))
end
excess = redis.call('XLEN', log) - tonumber(ARGV[6])
if excess > 0 then
  dropFromLog(redis.call('XRANGE', log, '-', '+', 'COUNT', math.min(excess, 100)))
end
for account in pairs(touched) do
  local key = base .. 'audit:' .. account
  if redis.call('XLEN', key) == 0 then
    redis.call('DEL', key)
  end
end
return id
`;

interface AuditCommands {
  ksadkAuditAppendV1(...args: string[]): Promise<string>;
}

/** A time as a stream id's milliseconds: a whole number from 0 to 2^53 - 1. */
const millisOf = (at: number): string =>
  String(Number.isNaN(at) ? 0 : Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(at))));

/** A cursor this store made (a stream id), or `undefined` for anything else. */
const streamCursor = (cursor: string | undefined): string | undefined =>
  cursor === undefined ? '+' : /^\d{1,20}-\d{1,20}$/.test(cursor) ? `(${cursor}` : undefined;

/** One field of a stream entry (`[field, value, …]`). */
function fieldOf(fields: readonly string[], name: string): string | undefined {
  for (let index = 0; index + 1 < fields.length; index += 2)
    if (fields[index] === name) return fields[index + 1];
  return undefined;
}

/** The audit-log methods of the Redis approval store. */
export type RedisAuditLog = Pick<ApprovalStore, 'appendAudit' | 'listAudit'>;

/**
 * The audit log on Redis: a stream of every record and one per account, under the same ids, so
 * a listing is one `XREVRANGE` of the right stream. An append is one script: it adds the record
 * and keeps the retention (age, the account's count, the total), bounded work per append.
 */
export function redisAuditLog(
  context: RedisStoreContext,
  retention: AuditRetention,
): RedisAuditLog {
  const { client, base, timeoutMs, now } = context;
  defineCommands(client, { ksadkAuditAppendV1: { numberOfKeys: 2, lua: APPEND_SCRIPT } });
  const commands = client as unknown as AuditCommands;
  const log = `${base}audit`;
  const streamOf = (accountId: string | undefined): string =>
    accountId === undefined ? log : `${log}:${keyHash([accountId])}`;

  return {
    async appendAudit(entry) {
      const account = keyHash([entry.accountId]);
      const cutoff = now() - retention.retentionMs;
      await guarded('append an audit record', timeoutMs, () =>
        commands.ksadkAuditAppendV1(
          log,
          `${log}:${account}`,
          millisOf(entry.at),
          JSON.stringify(entry),
          account,
          cutoff >= 1 ? millisOf(cutoff) : '',
          String(retention.perAccount),
          String(retention.total),
        ),
      );
    },
    async listAudit(query) {
      const end = streamCursor(query.cursor);
      if (end === undefined) return { items: [] };
      const since = query.since;
      if (since !== undefined && (Number.isNaN(since) || since === Infinity)) return { items: [] };
      // An id's time is never before its record's `at`: the range may start at `since`.
      const start = since === undefined || since === -Infinity ? '-' : millisOf(since);
      const limit = pageSize(query.limit);
      const entries = (await guarded('list audit records', timeoutMs, () =>
        client.xrevrange(streamOf(query.accountId), end, start, 'COUNT', limit + 1),
      )) as [string, string[]][];
      const items: ApprovalAuditEntry[] = [];
      for (const [, fields] of entries.slice(0, limit)) {
        const json = fieldOf(fields, 'e');
        if (json === undefined) continue;
        const entry = JSON.parse(json) as ApprovalAuditEntry;
        if (since === undefined || entry.at >= since) items.push(entry);
      }
      return entries.length > limit ? { items, nextCursor: entries[limit - 1]![0] } : { items };
    },
  };
}
