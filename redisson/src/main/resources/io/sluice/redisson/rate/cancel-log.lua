-- Hands back whatever a prefetch took from a sliding log when Sluice never got its answer (the call failed or
-- timed out, though Redis may run it later): its entry, found by its id at the time it counts from, leaves the log
-- and the counter gets its permits back. When there is none yet, a tombstone (a field of the config hash, removed
-- by the prefetch when it runs, else pruned here once ended) makes a prefetch under that id that runs later take
-- nothing. Idempotent.
-- KEYS[1] the config hash, KEYS[2] {name}:value, KEYS[3] {name}:permits (the log). ARGV[1] the prefetch's entry id,
-- ARGV[2] the time (ms) its entry counts from, ARGV[3] now (ms, the caller's clock, as rate.lua's), ARGV[4] how long
-- (ms) a tombstone lasts.
-- Returns the permits handed back (0 when a tombstone was left).
local id = ARGV[1]
local at = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local lasts = tonumber(ARGV[4])
for _, v in ipairs(redis.call('zrangebyscore', KEYS[3], at, at)) do
  local entryId, permits = struct.unpack('Bc0I', v)
  if entryId == id then
    redis.call('zrem', KEYS[3], v)
    if redis.call('exists', KEYS[2]) == 1 then redis.call('incrby', KEYS[2], permits) end
    return permits
  end
end
-- Tombstones that have ended go; they are few (one per prefetch given up on).
local fields = redis.call('hgetall', KEYS[1])
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 5) == 'gone:' and tonumber(fields[i + 1]) <= now then redis.call('hdel', KEYS[1], fields[i]) end
end
redis.call('hset', KEYS[1], 'gone:' .. id, now + lasts)
if redis.call('pttl', KEYS[1]) < 0 then redis.call('pexpire', KEYS[1], lasts) end
return 0
