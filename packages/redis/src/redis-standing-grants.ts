import type { ApprovalStore, StandingGrant } from '@ksadk/core';
import {
  approvalQuotaExceeded,
  isActiveGrant,
  pageSize,
  type StandingGrantQuota,
} from '@ksadk/core/adapter';
import {
  defineCommands,
  filterArgs,
  keyHash,
  type RedisStoreContext,
  scanBound,
  scoreCursor,
} from './redis-store-context.js';
import { guarded } from './store-error.js';

/** KEYS[1] is `B sgrs`; `removeGrant(id)` forgets a grant and its index entries. */
const PRELUDE = `
local all = KEYS[1]
local base = string.sub(all, 1, #all - 4)

local function removeGrant(id)
  local key = base .. 'sgr:' .. id
  local f = redis.call('HMGET', key, 'acct', 'tool')
  redis.call('DEL', key)
  for _, index in ipairs({ 'sgrs', 'sgrx', 'sgrr' }) do
    redis.call('ZREM', base .. index, id)
    if f[1] then
      redis.call('ZREM', base .. index .. ':' .. f[1], id)
    end
  end
  if f[2] then
    redis.call('ZREM', base .. 'sgrt:' .. f[2], id)
  end
end
`;

/**
 * KEYS: `B sgrs`, the grant's hash, the account's `sgrs:<h>`, the (account, tool) `sgrt:<h>`,
 * `B seq`. ARGV: id, account h, tool h, expiresAt, now, body, revokedAt ('' = none), perAccount,
 * total, userId, sessionId, toolName.
 * Makes room in the account, then in the store, by dropping expired, then revoked grants (of that
 * account, then of any), oldest first; never an active one. Returns 'ok', 'account' or 'server'.
 */
const SAVE_SCRIPT = `${PRELUDE}
local id, acct, now = ARGV[1], ARGV[2], tonumber(ARGV[5])
if redis.call('EXISTS', KEYS[2]) == 1 then
  removeGrant(id)
end

local function makeRoom(scope, suffix, limit)
  while redis.call('ZCARD', scope) + 1 > limit do
    local gone = redis.call('ZRANGEBYSCORE', base .. 'sgrx' .. suffix, '-inf', now, 'LIMIT', 0, 1)
    if #gone == 0 then
      gone = redis.call('ZRANGE', base .. 'sgrr' .. suffix, 0, 0)
    end
    if #gone == 0 then
      return false
    end
    removeGrant(gone[1])
  end
  return true
end

if not makeRoom(KEYS[3], ':' .. acct, tonumber(ARGV[8])) then
  return 'account'
end
if not makeRoom(all, '', tonumber(ARGV[9])) then
  return 'server'
end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[2], 'body', ARGV[6], 'exp', ARGV[4], 'acct', acct, 'tool', ARGV[3],
  'user', ARGV[10], 'sess', ARGV[11], 'name', ARGV[12])
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[2], 'rev', ARGV[7])
end
for _, suffix in ipairs({ '', ':' .. acct }) do
  redis.call('ZADD', base .. 'sgrs' .. suffix, seq, id)
  redis.call('ZADD', base .. 'sgrx' .. suffix, ARGV[4], id)
  if ARGV[7] ~= '' then
    redis.call('ZADD', base .. 'sgrr' .. suffix, seq, id)
  end
end
redis.call('ZADD', KEYS[4], seq, id)
return 'ok'
`;

/**
 * KEYS: `B sgrs`, the grant's hash. ARGV: id, revokedAt.
 * Compare-and-set: returns the grant's body when it was held and not yet revoked, else nil.
 */
const REVOKE_SCRIPT = `${PRELUDE}
local f = redis.call('HMGET', KEYS[2], 'body', 'rev', 'acct')
if not f[1] or f[2] then
  return false
end
redis.call('HSET', KEYS[2], 'rev', ARGV[2])
local seq = redis.call('ZSCORE', all, ARGV[1]) or 0
redis.call('ZADD', base .. 'sgrr', seq, ARGV[1])
redis.call('ZADD', base .. 'sgrr:' .. f[3], seq, ARGV[1])
return f[1]
`;

/** KEYS: `B sgrs`, the (account, tool) `sgrt:<h>`. ARGV: now. Returns the bodies of the active grants. */
const FIND_SCRIPT = `${PRELUDE}
local now = tonumber(ARGV[1])
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local f = redis.call('HMGET', base .. 'sgr:' .. id, 'body', 'exp', 'rev')
  if f[1] and not f[3] and tonumber(f[2]) > now then
    out[#out + 1] = f[1]
  end
end
return out
`;

/**
 * KEYS: the index to read (`B sgrs` or an account's `sgrs:<h>`), `B sgrs`.
 * ARGV: max score, scan bound, limit, now, includeInactive ('1'/'0'), then hasUser, userId,
 * hasSession, sessionId, hasTool, toolName.
 * Returns `{ cursor | false, body, revokedAt ('' = none), … }`, like the request listing.
 */
const LIST_SCRIPT = `
local scope, all = KEYS[1], KEYS[2]
local base = string.sub(all, 1, #all - 4)
local scan, limit, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local ids = redis.call('ZREVRANGEBYSCORE', scope, ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', 0, scan)
local out = { false }
local count, last = 0, false
for i = 1, #ids, 2 do
  local f = redis.call('HMGET', base .. 'sgr:' .. ids[i], 'body', 'rev', 'exp', 'user', 'sess', 'name')
  local keep = f[1] ~= false
    and (ARGV[5] == '1' or (not f[2] and tonumber(f[3]) > now))
    and (ARGV[6] == '0' or f[4] == ARGV[7])
    and (ARGV[8] == '0' or f[5] == ARGV[9])
    and (ARGV[10] == '0' or f[6] == ARGV[11])
  if keep then
    if count == limit then
      out[1] = last
      return out
    end
    count = count + 1
    last = ids[i + 1]
    out[#out + 1] = f[1]
    out[#out + 1] = f[2] or ''
  end
end
if #ids == scan * 2 then
  out[1] = ids[#ids]
end
return out
`;

interface GrantCommands {
  ksadkGrantSaveV1(...args: string[]): Promise<string>;
  ksadkGrantRevokeV1(...args: string[]): Promise<string | null>;
  ksadkGrantFindV1(...args: string[]): Promise<string[]>;
  ksadkGrantListV1(...args: string[]): Promise<[string | null, ...string[]]>;
}

/** The part of a grant stored as JSON (`revokedAt` has a field of its own: revocation sets it). */
type GrantBody = Omit<StandingGrant, 'revokedAt'>;

const grantOf = (body: string, revokedAt: string | null | undefined): StandingGrant => ({
  ...(JSON.parse(body) as GrantBody),
  ...(revokedAt ? { revokedAt: Number(revokedAt) } : {}),
});

/** A time as a sorted-set score. */
const scoreOf = (at: number): string =>
  Number.isFinite(at) ? String(at) : at > 0 ? '+inf' : '-inf';

/** The standing-grant methods of the Redis approval store. */
export type RedisStandingGrants = Pick<
  ApprovalStore,
  | 'saveStandingGrant'
  | 'getStandingGrant'
  | 'findStandingGrants'
  | 'listStandingGrants'
  | 'revokeStandingGrant'
>;

/**
 * Standing grants on Redis: a hash per grant, indexed by save order (store-wide and per
 * account), by (account, tool) for the look-up a gated call makes, by expiry and by revocation
 * (what quota pressure drops first). Saving (with its quotas) and revoking are Lua scripts: one
 * step on the server, so of concurrent revocations exactly one wins.
 */
export function redisStandingGrants(
  context: RedisStoreContext,
  quota: StandingGrantQuota,
): RedisStandingGrants {
  const { client, base, timeoutMs, now } = context;
  defineCommands(client, {
    ksadkGrantSaveV1: { numberOfKeys: 5, lua: SAVE_SCRIPT },
    ksadkGrantRevokeV1: { numberOfKeys: 2, lua: REVOKE_SCRIPT },
    ksadkGrantFindV1: { numberOfKeys: 2, lua: FIND_SCRIPT },
    ksadkGrantListV1: { numberOfKeys: 2, lua: LIST_SCRIPT },
  });
  const commands = client as unknown as GrantCommands;
  const all = `${base}sgrs`;
  const grantKey = (id: string): string => `${base}sgr:${id}`;
  const toolKey = (accountId: string, toolName: string): string =>
    `${base}sgrt:${keyHash([accountId, toolName])}`;

  return {
    async saveStandingGrant(grant) {
      const { revokedAt, ...body } = grant;
      const account = keyHash([grant.accountId]);
      const outcome = await guarded('save a standing grant', timeoutMs, () =>
        commands.ksadkGrantSaveV1(
          all,
          grantKey(grant.id),
          `${all}:${account}`,
          toolKey(grant.accountId, grant.toolName),
          `${base}seq`,
          grant.id,
          account,
          keyHash([grant.accountId, grant.toolName]),
          scoreOf(grant.expiresAt),
          String(now()),
          JSON.stringify(body satisfies GrantBody),
          revokedAt === undefined ? '' : String(revokedAt),
          String(quota.perAccount),
          String(quota.total),
          grant.userId,
          grant.sessionId,
          grant.toolName,
        ),
      );
      if (outcome !== 'ok') throw approvalQuotaExceeded(outcome as 'account', 'standing grants');
    },
    async getStandingGrant(id) {
      const [body, revokedAt] = await guarded('read a standing grant', timeoutMs, () =>
        client.hmget(grantKey(id), 'body', 'rev'),
      );
      return body ? grantOf(body, revokedAt) : undefined;
    },
    async findStandingGrants({ accountId, toolName, now: at }) {
      const bodies = await guarded('find standing grants', timeoutMs, () =>
        commands.ksadkGrantFindV1(all, toolKey(accountId, toolName), String(at)),
      );
      return bodies
        .map((body) => grantOf(body, undefined))
        .filter(
          (grant) =>
            grant.accountId === accountId &&
            grant.toolName === toolName &&
            isActiveGrant(grant, at),
        );
    },
    async listStandingGrants(query) {
      const max = scoreCursor(query.cursor);
      if (max === undefined) return { items: [] };
      const limit = pageSize(query.limit);
      const scope = query.accountId === undefined ? all : `${all}:${keyHash([query.accountId])}`;
      const [cursor, ...found] = await guarded('list standing grants', timeoutMs, () =>
        commands.ksadkGrantListV1(
          scope,
          all,
          max,
          String(scanBound(limit)),
          String(limit),
          String(query.now),
          query.includeInactive === true ? '1' : '0',
          ...filterArgs(query.userId),
          ...filterArgs(query.sessionId),
          ...filterArgs(query.toolName),
        ),
      );
      const items: StandingGrant[] = [];
      for (let index = 0; index + 1 < found.length; index += 2)
        items.push(grantOf(found[index]!, found[index + 1]));
      return cursor === null ? { items } : { items, nextCursor: cursor };
    },
    async revokeStandingGrant(id, revokedAt) {
      const body = await guarded('revoke a standing grant', timeoutMs, () =>
        commands.ksadkGrantRevokeV1(all, grantKey(id), id, String(revokedAt)),
      );
      return body === null ? undefined : grantOf(body, String(revokedAt));
    },
  };
}
