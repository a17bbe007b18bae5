// Lua scripts of the Redis execution store. Each runs atomically on the server, so `begin` (the
// create-if-absent per call, with its quota drops) and `complete` (a compare-and-set from
// `started`) are safe across any number of processes, each in one round trip. (The listing's
// script is in redis-execution-list.ts.)
//
// Key layout under the store's base `B` = `<keyPrefix>{<keyPrefix>executions}:` (one hash tag,
// so every key of a store lives in one Redis Cluster slot). Record ids, accounts, sessions and
// call ids reach keys only as SHA-256 hashes (`h`):
//   B rec:<h>    HASH body (JSON of the fixed fields), status, attempt, and what the scripts read:
//                tool, digest, user, sess (the raw ids), start, dl (deadlineAt), exp (expiresAt);
//                once ended: end (endedAt), err?, handle?, result? (the inline JSON) — PX = expiry
//   B call:<h>   STRING the record of one call (account, session, call id) — PX = expiry
//   B sess:<h>   ZSET the records of one (account, session) by insertion order
//   B acct:<h>   ZSET one account's records, likewise; `:res` those holding an inline result
//   B all        ZSET every record, likewise (the total quota, the listing across accounts)
//   B results    ZSET every record holding an inline result, likewise
//   B expiry     ZSET every record, scored by its expiresAt (the expiry sweep)
//   B meta       HASH record → "<session h>|<account h>|<result chars>|<call h>" (outlives the PX)
//   B used       HASH account h → inline result characters it holds; `total` → the store's
//   B seq        STRING insertion counter
// The base is derived inside the scripts from KEYS (the `meta` key), so a client-side ioredis
// `keyPrefix` applies to every key they touch.

/** Shared prelude: the base, the meta parser, and `remove(id)` which forgets a record. */
const PRELUDE = `
local meta = KEYS[2]
local base = string.sub(meta, 1, #meta - 4)
local expiry, used, all, results = base .. 'expiry', base .. 'used', base .. 'all', base .. 'results'

local function parseMeta(m)
  local sess, acct, chars, call = string.match(m, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)$')
  return sess, acct, tonumber(chars), call
end

-- Adds to the inline result characters of an account (or of the store: 'total'); returns what
-- it holds now.
local function addChars(field, chars)
  local held = redis.call('HINCRBY', used, field, chars)
  if held <= 0 then
    redis.call('HDEL', used, field)
  end
  return held
end

-- Takes a record's inline result characters off its account's and the store's.
local function freeChars(acct, chars)
  if chars > 0 then
    addChars(acct, 0 - chars)
    addChars('total', 0 - chars)
  end
end

-- Forgets a record: its hash, its index entries, its result characters, its call pointer.
local function remove(id)
  redis.call('DEL', base .. 'rec:' .. id)
  redis.call('ZREM', results, id)
  local m = redis.call('HGET', meta, id)
  if not m then
    return
  end
  local sess, acct, chars, call = parseMeta(m)
  redis.call('HDEL', meta, id)
  redis.call('ZREM', expiry, id)
  redis.call('ZREM', all, id)
  redis.call('ZREM', base .. 'sess:' .. sess, id)
  redis.call('ZREM', base .. 'acct:' .. acct, id)
  redis.call('ZREM', base .. 'acct:' .. acct .. ':res', id)
  freeChars(acct, chars)
  local ckey = base .. 'call:' .. call
  if redis.call('GET', ckey) == id then
    redis.call('DEL', ckey)
  end
end
`;

/**
 * KEYS: rec, meta, call, sess, acct, seq, all.
 * ARGV: id h, session h, account h, call h, body, status, attempt, toolName, argsDigest, userId,
 * sessionId, startedAt, deadlineAt, expiresAt, now, ttl (ms), then the quotas perSession,
 * perAccount, total.
 * Returns `{ 'existing', <HGETALL of the call's record> }` when the call has an unexpired record
 * that is not a failed run of the same tool and arguments; else `{ 'created', attempt }` (the
 * previous attempt + 1 for a retry), or `{ 'full' }` when the record cannot fit.
 * Making room works like core's in-memory store: expired records go first (store-wide, up to
 * 1,000 per call), then a full session or account drops its oldest records that are not running
 * — ended, or started and past their deadline — until a tenth of it is free. A full store drops
 * anyone's expired records, then the calling account's own oldest records that are not running:
 * never another account's live records.
 */
export const BEGIN_SCRIPT = `${PRELUDE}
local id, now, ttl = ARGV[1], tonumber(ARGV[15]), ARGV[16]
local attempt = tonumber(ARGV[7])

local previous = redis.call('GET', KEYS[3])
if previous then
  local rec = base .. 'rec:' .. previous
  local f = redis.call('HMGET', rec, 'status', 'tool', 'digest', 'attempt', 'exp')
  if f[1] and tonumber(f[5]) > now then
    if f[1] ~= 'failed' or f[2] ~= ARGV[8] or f[3] ~= ARGV[9] then
      return { 'existing', redis.call('HGETALL', rec) }
    end
    attempt = tonumber(f[4]) + 1
  end
  remove(previous)
end
if redis.call('HEXISTS', meta, id) == 1 then
  remove(id)
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
      if keep(other) then
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

local function isRunning(other)
  local f = redis.call('HMGET', base .. 'rec:' .. other, 'status', 'dl', 'exp')
  return f[1] == 'started' and tonumber(f[2]) > now and tonumber(f[3]) > now
end

local function never()
  return false
end

local function makeRoom(key, limit, backlog)
  if redis.call('ZCARD', key) < limit then
    return true
  end
  if backlog then
    -- The sweep could not take every expired record: look for this scope's own.
    drain(key, never, isLive)
  end
  local target = limit - math.max(1, math.floor(limit / 10))
  drain(key, function()
    return redis.call('ZCARD', key) <= target
  end, isRunning)
  return redis.call('ZCARD', key) < limit
end

-- A full store: anyone's expired records, then the caller's own (its account's) not running.
local function makeRoomInStore(limit, backlog)
  if redis.call('ZCARD', all) < limit then
    return true
  end
  if backlog then
    sweepExpired(10000)
  end
  local target = limit - math.max(1, math.floor(limit / 10))
  drain(KEYS[5], function()
    return redis.call('ZCARD', all) <= target
  end, isRunning)
  return redis.call('ZCARD', all) < limit
end

local backlog = sweepExpired(1000)
if not makeRoom(KEYS[4], tonumber(ARGV[17]), backlog)
  or not makeRoom(KEYS[5], tonumber(ARGV[18]), backlog)
  or not makeRoomInStore(tonumber(ARGV[19]), backlog) then
  return { 'full' }
end

local seq = redis.call('INCR', KEYS[6])
redis.call('HSET', KEYS[1], 'body', ARGV[5], 'status', ARGV[6], 'attempt', attempt,
  'tool', ARGV[8], 'digest', ARGV[9], 'user', ARGV[10], 'sess', ARGV[11],
  'start', ARGV[12], 'dl', ARGV[13], 'exp', ARGV[14])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[3], id, 'PX', ttl)
for _, key in ipairs({ KEYS[4], KEYS[5], KEYS[7] }) do
  redis.call('ZADD', key, seq, id)
end
redis.call('ZADD', expiry, ARGV[14], id)
redis.call('HSET', meta, id, ARGV[2] .. '|' .. ARGV[3] .. '|0|' .. ARGV[4])
return { 'created', attempt }
`;

/**
 * KEYS: rec, meta. ARGV: id h, status, endedAt, hasErrorType ('1'/'0'), errorType, hasHandle,
 * resultHandle, hasResult, resultJson, its characters, resultCharsPerAccount, resultCharsTotal.
 * Compare-and-set: ends a `started` record and returns its hash (HGETALL) afterwards; nil when it
 * is missing or already ended. A result kept inline counts toward its account's characters and
 * the store's; past either quota the oldest results (of the account, or of anyone) go, their
 * records stay — this one too when it is the oldest.
 */
export const COMPLETE_SCRIPT = `${PRELUDE}
local id = ARGV[1]
if redis.call('HGET', KEYS[1], 'status') ~= 'started' then
  return false
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'end', ARGV[3])
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'err', ARGV[5])
end
if ARGV[6] == '1' then
  redis.call('HSET', KEYS[1], 'handle', ARGV[7])
end

-- Forgets the inline result of a record (the record stays).
local function dropResult(other)
  redis.call('ZREM', results, other)
  redis.call('HDEL', base .. 'rec:' .. other, 'result')
  local om = redis.call('HGET', meta, other)
  if om then
    local s, a, chars, c = parseMeta(om)
    redis.call('ZREM', base .. 'acct:' .. a .. ':res', other)
    redis.call('HSET', meta, other, s .. '|' .. a .. '|0|' .. c)
    freeChars(a, chars)
  end
end

-- Drops the oldest results of 'index' while 'field' holds more than 'quota' characters.
local function trim(index, field, quota)
  while (tonumber(redis.call('HGET', used, field)) or 0) > quota do
    local oldest = redis.call('ZRANGE', index, 0, 0)[1]
    if not oldest then
      return
    end
    dropResult(oldest)
    redis.call('ZREM', index, oldest)
  end
end

local m = redis.call('HGET', meta, id)
if ARGV[8] == '1' and m then
  local sess, acct, _, call = parseMeta(m)
  local res = base .. 'acct:' .. acct .. ':res'
  local seq = redis.call('ZSCORE', all, id) or 0
  redis.call('HSET', KEYS[1], 'result', ARGV[9])
  redis.call('HSET', meta, id, sess .. '|' .. acct .. '|' .. ARGV[10] .. '|' .. call)
  redis.call('ZADD', res, seq, id)
  redis.call('ZADD', results, seq, id)
  addChars(acct, tonumber(ARGV[10]))
  addChars('total', tonumber(ARGV[10]))
  trim(res, acct, tonumber(ARGV[11]))
  trim(results, 'total', tonumber(ARGV[12]))
end
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: call, meta. ARGV: now. The hash of the call's record when it is unexpired, else nil. */
export const FIND_CALL_SCRIPT = `
local id = redis.call('GET', KEYS[1])
if not id then
  return false
end
local rec = string.sub(KEYS[2], 1, #KEYS[2] - 4) .. 'rec:' .. id
if (tonumber(redis.call('HGET', rec, 'exp')) or 0) <= tonumber(ARGV[1]) then
  return false
end
return redis.call('HGETALL', rec)
`;
