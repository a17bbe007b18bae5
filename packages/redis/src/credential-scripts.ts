// The Lua scripts of the Redis credential store. Every key is under the store's hash tag, so
// they run on one Cluster slot. `B` is the store's base (`<prefix>{<prefix>credentials}:`).

/**
 * KEYS: the credential's key, the account's set of credentials. ARGV: member, JSON, quota.
 * Saves (or replaces) a credential; a new one only while the account holds fewer than the quota.
 * Returns 'ok' or 'full'.
 */
export const PUT_CREDENTIAL_SCRIPT = `
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then
  if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then
    return 'full'
  end
  redis.call('SADD', KEYS[2], ARGV[1])
end
redis.call('SET', KEYS[1], ARGV[2])
return 'ok'
`;

/** KEYS: the credential's key, the account's set. ARGV: member. Returns 1 when it was held. */
export const DELETE_CREDENTIAL_SCRIPT = `
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`;

/**
 * KEYS: the request's hash, the account's index (a sorted set by creation), the call's index
 * ('' members when the request names no call), `B seq`.
 * ARGV: member, body, status, expiresAt, now, ttl (ms), quota, hasCall ('1'/'0').
 * When the account is full, its used and expired requests go first (never another account's);
 * then a new request is refused while it is still full. Each key lives as long as its newest
 * request. Returns 'ok' or 'full'.
 */
export const CREATE_REQUEST_SCRIPT = `
local member, now, ttl = ARGV[1], tonumber(ARGV[5]), tonumber(ARGV[6])
local base = string.sub(KEYS[4], 1, #KEYS[4] - 3)
local fresh = redis.call('ZSCORE', KEYS[2], member) == false
if fresh and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    local f = redis.call('HMGET', base .. 'req:' .. old, 'status', 'exp')
    if not f[1] or f[1] == 'used' or tonumber(f[2]) <= now then
      redis.call('DEL', base .. 'req:' .. old)
      redis.call('ZREM', KEYS[2], old)
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) then
    return 'full'
  end
end
local seq = redis.call('INCR', KEYS[4])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'body', ARGV[2], 'status', ARGV[3], 'exp', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
local indexes = { KEYS[2] }
if ARGV[8] == '1' then
  indexes[2] = KEYS[3]
end
for _, index in ipairs(indexes) do
  redis.call('ZADD', index, seq, member)
  if redis.call('PTTL', index) < ttl then
    redis.call('PEXPIRE', index, ttl)
  end
end
return 'ok'
`;

/**
 * KEYS: the call's index, `B seq`. ARGV: now.
 * The body of the newest pending, unexpired request of the call, or nil.
 */
export const FIND_PENDING_SCRIPT = `
local base = string.sub(KEYS[2], 1, #KEYS[2] - 3)
local now = tonumber(ARGV[1])
for _, member in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, -1)) do
  local f = redis.call('HMGET', base .. 'req:' .. member, 'body', 'status', 'exp')
  if f[1] and f[2] == 'pending' and tonumber(f[3]) > now then
    return f[1]
  end
end
return false
`;

/**
 * KEYS: the request's hash. ARGV: now.
 * Compare-and-set: marks a pending, unexpired request used and returns its body; else nil.
 */
export const USE_REQUEST_SCRIPT = `
local f = redis.call('HMGET', KEYS[1], 'body', 'status', 'exp')
if not f[1] or f[2] ~= 'pending' or tonumber(f[3]) <= tonumber(ARGV[1]) then
  return false
end
redis.call('HSET', KEYS[1], 'status', 'used')
return f[1]
`;
