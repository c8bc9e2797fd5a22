/**
 * The stream caps' Lua scripts (src/stream/stream-caps.redis.ts): admission, renewal and release,
 * each one atomic step in Redis on the keys of one map, which share the map's hash tag (one slot of a
 * Redis Cluster; src/redis/redis-keys.ts):
 *
 *   holders     sorted set: the id of each process holding connections of the map, scored by the
 *               expiry of its entry (renewed once per renewal period, whatever its connections)
 *   counts      hash: `n:<process>` its connections of the map, `k:<process>:<key id>` those of one
 *               API key (a key belongs to one map), `epoch` the map's epoch
 *   recovering  set while the map's counts are being written back after Redis lost them
 *
 * A process's counts count while its entry lives: a process that dies stops renewing, its entry
 * expires and the next admission drops its fields. Redis holds the counts, the processes hold the
 * truth: each renewal writes the process's counts of the map as it knows them (admissions in flight
 * included, so none is undercounted), which also makes good a release lost in an outage, and one
 * that finds its entry gone or the map's epoch changed (Redis lost the map's keys) reports the loss.
 */
import { RedisScript } from '../redis/redis-script.js';

/** Drops the fields of processes whose entry expired (KEYS[1] holders, KEYS[2] counts; ARGV[1] now). */
const PRUNE = `
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #dead > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
  local gone = {}
  for _, d in ipairs(dead) do gone[d] = true end
  local drop = {}
  for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do
    local owner = string.match(f, '^[nk]:([^:]+)')
    if owner and gone[owner] then drop[#drop + 1] = f end
  end
  if #drop > 0 then redis.call('HDEL', KEYS[2], unpack(drop)) end
end
`;

/**
 * KEYS[1] holders, KEYS[2] counts, KEYS[3] recovering.
 * ARGV: now, expiry, process id, key id, map cap, key cap, keys' ttl (ms), the map's epoch this
 * process knows ('' for none), a new epoch, recovery window (ms), '1' when this process's Redis
 * connection came back within the recovery window, this process's admitted connections of the map
 * and of the key (its truth: never counted below them).
 * Returns {verdict, epoch, wait}: 0 admitted, 1 map full, 2 key full, 3 recovering (wait ms).
 *
 * A process that knew the map's epoch and finds it gone or replaced knows Redis lost the map's counts,
 * and opens the recovery window; so does one whose connection just came back and finds no epoch (the
 * holders may not have written theirs yet). A process that never saw the map and was not cut off
 * takes a missing epoch for a map nobody holds.
 */
export const ADMIT = new RedisScript(`
local epoch = redis.call('HGET', KEYS[2], 'epoch')
if not epoch then
  epoch = ARGV[9]
  redis.call('HSET', KEYS[2], 'epoch', epoch)
  if ARGV[8] ~= '' or ARGV[11] == '1' then redis.call('SET', KEYS[3], '1', 'PX', ARGV[10]) end
elseif ARGV[8] ~= '' and epoch ~= ARGV[8] then
  redis.call('SET', KEYS[3], '1', 'PX', ARGV[10])
end
local wait = redis.call('PTTL', KEYS[3])
if wait > 0 then return {3, epoch, wait} end
${PRUNE}
local me = ARGV[3]
local key = ARGV[4]
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
local fields = {'n:' .. me, 'k:' .. me .. ':' .. key}
for _, q in ipairs(live) do
  if q ~= me then
    fields[#fields + 1] = 'n:' .. q
    fields[#fields + 1] = 'k:' .. q .. ':' .. key
  end
end
local values = redis.call('HMGET', KEYS[2], unpack(fields))
local mine = math.max(tonumber(values[1]) or 0, tonumber(ARGV[12]))
local mineKey = math.max(tonumber(values[2]) or 0, tonumber(ARGV[13]))
local n, k = mine, mineKey
for i = 3, #values, 2 do
  n = n + (tonumber(values[i]) or 0)
  k = k + (tonumber(values[i + 1]) or 0)
end
if n >= tonumber(ARGV[5]) then return {1, epoch, 0} end
if k >= tonumber(ARGV[6]) then return {2, epoch, 0} end
redis.call('HSET', KEYS[2], fields[1], mine + 1, fields[2], mineKey + 1)
redis.call('ZADD', KEYS[1], ARGV[2], me)
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return {0, epoch, 0}
`);

/**
 * KEYS[1] holders, KEYS[2] counts, KEYS[3] recovering. ARGV: process id, expiry, keys' ttl (ms), the
 * map's epoch this process knows, a new epoch, recovery window (ms), its connections of the map, then
 * pairs of key id and its connections (0: none left, the field goes).
 * Renews the process's entry, writes its counts as it knows them (one HSET however many: a release
 * that never reached Redis, during an outage, is made good here) and keeps the map's keys alive: a
 * handful of commands however many connections. When the entry was gone or the epoch changed it
 * reports what Redis had lost and, for a changed epoch, opens the recovery window. Returns {epoch,
 * connections Redis had lost}.
 */
export const RENEW = new RedisScript(`
local epoch = redis.call('HGET', KEYS[2], 'epoch')
local changed = false
if not epoch then
  epoch = ARGV[5]
  redis.call('HSET', KEYS[2], 'epoch', epoch)
  changed = true
elseif epoch ~= ARGV[4] then
  changed = true
end
local me = ARGV[1]
local added = redis.call('ZADD', KEYS[1], ARGV[2], me)
local lost = 0
if changed or added > 0 then
  lost = math.max(0, tonumber(ARGV[7]) - (tonumber(redis.call('HGET', KEYS[2], 'n:' .. me)) or 0))
end
local set = {'n:' .. me, ARGV[7]}
local gone = {}
for i = 8, #ARGV, 2 do
  if ARGV[i + 1] == '0' then
    gone[#gone + 1] = 'k:' .. me .. ':' .. ARGV[i]
  else
    set[#set + 1] = 'k:' .. me .. ':' .. ARGV[i]
    set[#set + 1] = ARGV[i + 1]
  end
end
redis.call('HSET', KEYS[2], unpack(set))
if #gone > 0 then redis.call('HDEL', KEYS[2], unpack(gone)) end
if changed then redis.call('SET', KEYS[3], '1', 'PX', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {epoch, lost}
`);

/**
 * KEYS[1] holders, KEYS[2] counts. ARGV: process id, key id, the process's connections of the map
 * left after this one. Gives one connection's slot back; a process with none left leaves the holders.
 * A count Redis no longer had (it lost the map's keys) is not taken below zero: the holder's next
 * renewal writes it again, and the entry stays while the process has connections of the map.
 */
export const RELEASE = new RedisScript(`
local me = ARGV[1]
local kf = 'k:' .. me .. ':' .. ARGV[2]
if redis.call('HINCRBY', KEYS[2], kf, -1) <= 0 then redis.call('HDEL', KEYS[2], kf) end
if ARGV[3] == '0' then
  -- Its last connection of the map: every field of the process goes (one lost in an outage included).
  local drop = {}
  for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do
    if f == 'n:' .. me or string.sub(f, 1, #me + 3) == 'k:' .. me .. ':' then drop[#drop + 1] = f end
  end
  if #drop > 0 then redis.call('HDEL', KEYS[2], unpack(drop)) end
  redis.call('ZREM', KEYS[1], me)
elseif redis.call('HINCRBY', KEYS[2], 'n:' .. me, -1) < 0 then
  redis.call('HDEL', KEYS[2], 'n:' .. me)
end
return 1
`);

/**
 * KEYS[1] holders, KEYS[2] counts. ARGV: now, key id ('' for none). The connections of the map and of
 * the key that Redis counts now (processes whose entry expired left out): for metrics and tests.
 */
export const COUNT = new RedisScript(`
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')
local n, k = 0, 0
for _, q in ipairs(live) do
  local v = redis.call('HMGET', KEYS[2], 'n:' .. q, 'k:' .. q .. ':' .. ARGV[2])
  n = n + (tonumber(v[1]) or 0)
  k = k + (tonumber(v[2]) or 0)
end
return {n, k}
`);

/**
 * KEYS[1] holders, KEYS[2] counts. ARGV: now. The map's connections per API key that Redis counts now
 * (processes whose entry expired left out), as a flat list of key id and count: the presence of the
 * map (src/stream/presence.ts). A read: it costs nothing while nobody asks.
 */
export const PRESENCE = new RedisScript(`
local live = {}
for _, q in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')) do live[q] = true end
local byKey = {}
local order = {}
local fields = redis.call('HGETALL', KEYS[2])
for i = 1, #fields, 2 do
  local owner, key = string.match(fields[i], '^k:([^:]+):(.+)$')
  local n = tonumber(fields[i + 1]) or 0
  if owner and live[owner] and n > 0 then
    if not byKey[key] then
      byKey[key] = 0
      order[#order + 1] = key
    end
    byKey[key] = byKey[key] + n
  end
end
local out = {}
for _, key in ipairs(order) do
  out[#out + 1] = key
  out[#out + 1] = byKey[key]
end
return out
`);

/** KEYS[1] the presence changes. ARGV: now, since, keep (ms). Drops entries older than `keep`, returns the maps changed since `since`. */
export const PRESENCE_CHANGES = new RedisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (tonumber(ARGV[1]) - tonumber(ARGV[3])))
return redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], '+inf')
`);
