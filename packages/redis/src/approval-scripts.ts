// Lua scripts of the Redis approval store. Each runs atomically on the server, so create (with
// its quota checks and drops) and transition (the compare-and-set that makes a grant single-use)
// are safe across any number of processes.
//
// Key layout under the store's base `B` = `<keyPrefix>{<keyPrefix>approvals}:` (one hash tag, so
// every key of a store lives in one Redis Cluster slot):
//   B rec:<id>      HASH body (JSON of the fixed fields), args (JSON), chars, status, exp,
//                   decidedAt?, reason?, decidedBy?, edited? (JSON), and what listing filters on:
//                   tool, user, sess (the raw ids), dl (decideBy ?? expiresAt) — PX = expiry.
//                   Consumed: a tombstone (args '{}', chars 0, no edited)
//   B bind:<h>      STRING id of the newest record of a binding key (h = sha256) — PX = expiry
//   B sess:<h>      ZSET ids of one (account, session) by insertion order; `:u` the undecided
//   B acct:<h>      ZSET ids of one account, likewise      ones (pending, rejected), `:t` the
//                                                          tombstones (consumed)
//   B all           ZSET every id by insertion order (the listing across accounts)
//   B expiry        ZSET every id, scored by its expiresAt (store-wide count and expiry sweep)
//   B meta          HASH id → "<session h>|<account h>|<chars>|<binding h>" (outlives the PX)
//   B used          HASH sess:<h> / acct:<h> / total → argument characters held
//   B seq           STRING insertion counter (requests and standing grants)
// Standing grants (redis-standing-grants.ts), no PX: they stay until dropped for room —
//   B sgr:<id>      HASH body (JSON without revokedAt), rev?, exp, acct <h>, tool <h>, and the
//                   raw user, sess, name (tool name) for listing filters
//   B sgrs          ZSET every grant id by save order; `B sgrs:<h>` one account's
//   B sgrt:<h>      ZSET the grant ids of one (account, tool) — what a look-up reads
//   B sgrx          ZSET every grant id by expiresAt; `B sgrx:<h>` one account's
//   B sgrr          ZSET revoked grant ids by save order; `B sgrr:<h>` one account's
// The audit log (redis-audit-log.ts) —
//   B audit         STREAM every record: e (JSON), a (account h); the id's time is the record's
//                   `at` (or the previous id's, when `at` is older), so age trims by id
//   B audit:<h>     STREAM one account's records (e), under the same ids
// The base is derived inside the scripts from KEYS (the `meta` key), so a client-side ioredis
// `keyPrefix` applies to every key they touch. Dropping for room costs O(log n) per record
// dropped: the undecided and tombstone indexes give the candidates in order, without a scan.

/** Shared prelude: the base, the meta parser, and `remove(id)` which forgets a record. */
const PRELUDE = `
local meta = KEYS[2]
local base = string.sub(meta, 1, #meta - 4)
local expiry, used = base .. 'expiry', base .. 'used'

local function parseMeta(m)
  local sess, acct, chars, bind = string.match(m, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)$')
  return sess, acct, tonumber(chars), bind
end

-- Forgets a record: its hash, its index entries, its characters, its binding pointer.
local function remove(id)
  redis.call('DEL', base .. 'rec:' .. id)
  local m = redis.call('HGET', meta, id)
  if not m then
    return
  end
  local sess, acct, chars, bind = parseMeta(m)
  redis.call('HDEL', meta, id)
  redis.call('ZREM', expiry, id)
  redis.call('ZREM', base .. 'all', id)
  for _, field in ipairs({ 'sess:' .. sess, 'acct:' .. acct }) do
    local key = base .. field
    redis.call('ZREM', key, id)
    redis.call('ZREM', key .. ':u', id)
    redis.call('ZREM', key .. ':t', id)
    if redis.call('ZCARD', key) == 0 then
      redis.call('HDEL', used, field)
    elseif chars > 0 then
      redis.call('HINCRBY', used, field, 0 - chars)
    end
  end
  if chars > 0 then
    redis.call('HINCRBY', used, 'total', 0 - chars)
  end
  local bkey = base .. 'bind:' .. bind
  if redis.call('GET', bkey) == id then
    redis.call('DEL', bkey)
  end
end
`;

/**
 * KEYS: rec, meta, bind, sess, acct, seq, all.
 * ARGV: id, bindHash, sessHash, acctHash, chars, expiresAt, now, ttlMs, body, status, decidedAt
 * ('' = none), hasReason ('1'/'0'), reason, then maxRecords and maxChars per session, account,
 * total, then args (JSON), hasDecidedBy ('1'/'0'), decidedBy, edited (JSON, '' = none), then the
 * listing fields: toolName, userId, sessionId, deadline.
 * Returns 'ok', or the scope that refused: 'session', 'account', 'server'.
 */
export const CREATE_SCRIPT = `${PRELUDE}
local id, bindHash, sessHash, acctHash = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local chars, expiresAt, now, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local status = ARGV[10]

local function usedOf(field)
  return tonumber(redis.call('HGET', used, field)) or 0
end

-- Drops expired records store-wide, at most 'limit'; true when some may be left.
local function sweepExpired(limit)
  local ids = redis.call('ZRANGEBYSCORE', expiry, '-inf', now, 'LIMIT', 0, limit)
  for _, other in ipairs(ids) do
    remove(other)
  end
  return #ids == limit
end

-- Removes the members of 'key' oldest first (those 'keep' spares) until 'fits'.
local function drain(key, fits, keep)
  local offset = 0
  while not fits() do
    local ids = redis.call('ZRANGE', key, offset, offset + 49)
    if #ids == 0 then
      return
    end
    for _, other in ipairs(ids) do
      if fits() then
        return
      end
      if keep and keep(other) then
        offset = offset + 1
      else
        remove(other)
        redis.call('ZREM', key, other)
      end
    end
  end
end

local function isLive(other)
  return (tonumber(redis.call('ZSCORE', expiry, other)) or 0) > now
end

-- Makes room in one bucket the way the in-memory store does: expired records first, then the
-- oldest tombstones, then the oldest undecided requests; approved, unexpired grants never.
local function makeRoom(field, maxRecords, maxChars, backlog)
  local key = base .. field
  if redis.call('ZCARD', key) == 0 then
    return chars <= maxChars
  end
  local function fits()
    return redis.call('ZCARD', key) + 1 <= maxRecords and usedOf(field) + chars <= maxChars
  end
  if backlog then
    -- The sweep could not take every expired record: look for this bucket's own.
    drain(key, fits, isLive)
  end
  drain(key .. ':t', fits)
  drain(key .. ':u', fits)
  return fits()
end

local function totalFits()
  return redis.call('ZCARD', expiry) + 1 <= tonumber(ARGV[18])
    and usedOf('total') + chars <= tonumber(ARGV[19])
end

if redis.call('HEXISTS', meta, id) == 1 then
  remove(id)
end
-- Expired records go first, from every bucket: they are dead whatever their status.
local backlog = sweepExpired(1000)
if not makeRoom('sess:' .. sessHash, tonumber(ARGV[14]), tonumber(ARGV[15]), backlog) then
  return 'session'
end
if not makeRoom('acct:' .. acctHash, tonumber(ARGV[16]), tonumber(ARGV[17]), backlog) then
  return 'account'
end
if not totalFits() then
  if backlog then
    sweepExpired(10000)
  end
  if not totalFits() then
    return 'server'
  end
end

local seq = redis.call('INCR', KEYS[6])
redis.call('HSET', KEYS[1], 'body', ARGV[9], 'args', ARGV[20], 'chars', chars, 'status', status, 'exp', ARGV[6])
if ARGV[11] ~= '' then
  redis.call('HSET', KEYS[1], 'decidedAt', ARGV[11])
end
if ARGV[12] == '1' then
  redis.call('HSET', KEYS[1], 'reason', ARGV[13])
end
if ARGV[21] == '1' then
  redis.call('HSET', KEYS[1], 'decidedBy', ARGV[22])
end
if ARGV[23] ~= '' then
  redis.call('HSET', KEYS[1], 'edited', ARGV[23])
end
redis.call('HSET', KEYS[1], 'tool', ARGV[24], 'user', ARGV[25], 'sess', ARGV[26], 'dl', ARGV[27])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[3], id, 'PX', ttl)
for _, key in ipairs({ KEYS[4], KEYS[5] }) do
  redis.call('ZADD', key, seq, id)
  if status == 'consumed' then
    redis.call('ZADD', key .. ':t', seq, id)
  elseif status ~= 'approved' then
    redis.call('ZADD', key .. ':u', seq, id)
  end
end
redis.call('ZADD', expiry, expiresAt, id)
redis.call('ZADD', KEYS[7], seq, id)
redis.call('HSET', meta, id, sessHash .. '|' .. acctHash .. '|' .. chars .. '|' .. bindHash)
redis.call('HINCRBY', used, 'sess:' .. sessHash, chars)
redis.call('HINCRBY', used, 'acct:' .. acctHash, chars)
redis.call('HINCRBY', used, 'total', chars)
return 'ok'
`;

/**
 * KEYS: rec, meta. ARGV: id, from, to, decidedAt ('' = none), hasReason ('1'/'0'), reason,
 * hasDecidedBy ('1'/'0'), decidedBy, edited (JSON, '' = unchanged).
 * Returns the record's hash (HGETALL) after the change, or nil when it is missing or not in `from`.
 * A move to `consumed` leaves a tombstone in the same step: the arguments (and edited ones) go
 * and their characters are freed; the record still counts in its quotas until it expires or is
 * dropped for room. The reply still holds them: the caller runs the call with them.
 */
export const TRANSITION_SCRIPT = `${PRELUDE}
local id, to = ARGV[1], ARGV[3]
if redis.call('HGET', KEYS[1], 'status') ~= ARGV[2] then
  return false
end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'decidedAt', ARGV[4])
end
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[1], 'reason', ARGV[6])
end
if ARGV[7] == '1' then
  redis.call('HSET', KEYS[1], 'decidedBy', ARGV[8])
end
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[1], 'edited', ARGV[9])
end
redis.call('HSET', KEYS[1], 'status', to)
local fields = redis.call('HGETALL', KEYS[1])
local m = redis.call('HGET', meta, id)
if m then
  local sess, acct, chars, bind = parseMeta(m)
  for _, field in ipairs({ 'sess:' .. sess, 'acct:' .. acct }) do
    local key = base .. field
    if to == 'consumed' then
      redis.call('ZREM', key .. ':u', id)
      redis.call('ZADD', key .. ':t', redis.call('ZSCORE', key, id) or 0, id)
      if chars > 0 then
        redis.call('HINCRBY', used, field, 0 - chars)
      end
    elseif to == 'approved' then
      redis.call('ZREM', key .. ':u', id)
    else
      redis.call('ZADD', key .. ':u', redis.call('ZSCORE', key, id) or 0, id)
    end
  end
  if to == 'consumed' and chars > 0 then
    redis.call('HINCRBY', used, 'total', 0 - chars)
    redis.call('HSET', meta, id, sess .. '|' .. acct .. '|0|' .. bind)
  end
end
if to == 'consumed' then
  redis.call('HSET', KEYS[1], 'args', '{}', 'chars', '0')
  redis.call('HDEL', KEYS[1], 'edited')
end
return fields
`;

/**
 * KEYS: bind, meta. ARGV: now. Returns the hash of the newest record of the binding key when it
 * is unexpired (a consumed tombstone too), else nil.
 */
export const FIND_OPEN_SCRIPT = `
local id = redis.call('GET', KEYS[1])
if not id then
  return false
end
local meta = KEYS[2]
local rec = string.sub(meta, 1, #meta - 4) .. 'rec:' .. id
local fields = redis.call('HGETALL', rec)
if #fields == 0 or (tonumber(redis.call('HGET', rec, 'exp')) or 0) <= tonumber(ARGV[1]) then
  return false
end
return fields
`;
