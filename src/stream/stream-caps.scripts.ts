/**
 * The stream caps' Lua scripts (src/stream/stream-caps.ts): admission and renewal, each one atomic
 * step in Redis.
 */

/**
 * KEYS[1] map set, KEYS[2] key set, KEYS[3] epoch, KEYS[4] recovery window.
 * ARGV: now, expiry, lease id, map cap, key cap, sets' ttl (ms), the epoch this process knows ('' for
 * none), a new epoch, recovery window (ms), '1' when this process holds other leases.
 * Each set holds lease ids scored by expiry; expired ones are dropped before counting.
 * Returns {verdict, epoch, wait}: 0 admitted, 1 map full, 2 key full, 3 recovering (wait ms).
 *
 * The epoch is made by the first process to use the caps and lives as long as Redis keeps its data:
 * a process that knew one and finds it gone (or replaced while it holds leases) knows the leases were
 * lost, and opens the recovery window. A process that never saw one (it started while Redis was
 * being replaced) cannot tell a new deployment from a loss; the holders see it at their next renewal.
 */
export const ADMIT = `
local epoch = redis.call('GET', KEYS[3])
if not epoch then
  redis.call('SET', KEYS[3], ARGV[8])
  epoch = ARGV[8]
  if ARGV[7] ~= '' then redis.call('SET', KEYS[4], '1', 'PX', ARGV[9]) end
elseif ARGV[7] ~= '' and epoch ~= ARGV[7] and ARGV[10] == '1' then
  redis.call('SET', KEYS[4], '1', 'PX', ARGV[9])
end
local wait = redis.call('PTTL', KEYS[4])
if wait > 0 then return {3, epoch, wait} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return {1, epoch, 0} end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return {2, epoch, 0} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return {0, epoch, 0}
`;

/**
 * KEYS[1] epoch, KEYS[2] recovery window, then pairs of sets. ARGV: expiry, sets' ttl (ms), the epoch
 * this process knows, a new epoch, recovery window (ms), then the lease ids (one per pair).
 * Writes every lease again, whether Redis still had it or not (a live connection keeps its slot, even
 * past a cap: nothing is shed), and keeps its sets alive. Returns {epoch, leases Redis had lost}.
 */
export const RENEW = `
local epoch = redis.call('GET', KEYS[1])
local changed = false
if not epoch then
  redis.call('SET', KEYS[1], ARGV[4])
  epoch = ARGV[4]
  changed = true
elseif epoch ~= ARGV[3] then
  changed = true
end
local lost = 0
for i = 3, #KEYS, 2 do
  local id = ARGV[(i - 3) / 2 + 6]
  local added = redis.call('ZADD', KEYS[i], ARGV[1], id) + redis.call('ZADD', KEYS[i + 1], ARGV[1], id)
  if added > 0 then lost = lost + 1 end
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
  redis.call('PEXPIRE', KEYS[i + 1], ARGV[2])
end
if changed or lost > 0 then redis.call('SET', KEYS[2], '1', 'PX', ARGV[5]) end
return {epoch, lost}
`;
