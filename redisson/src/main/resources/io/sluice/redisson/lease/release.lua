-- Returns a permit exactly once: a second release, or one of an expired (reclaimed) permit, changes nothing.
-- KEYS[1] available count, KEYS[2] {name}:timeout, KEYS[3] wake-up channel, KEYS[4] {name}:released,
-- KEYS[5] Sluice's wake-up channel. ARGV[1] permit id (hex), ARGV[2] limit (the rule's current one), ARGV[3] how to
-- wake waiters (see wake), ARGV[4] until when (ms) an acquire of this id that arrives later must take nothing,
-- ARGV[5] now (ms), ARGV[6] how long that is from now (ms): the lease.
-- Redisson's waiters are woken with wake(channel, value, ARGV[3]), from wake.lua (prepended on load); Sluice's with
-- the leases still held, whatever the limit: each of them judges by its own (its plan's).
local id = ARGV[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)
if redis.call('zrem', KEYS[2], id) == 0 then
  -- Not held: already released, expired, or not acquired yet (the engine gave up on an acquire still on its way).
  -- A tombstone for one lease makes that acquire take nothing; later, its own lease would have expired anyway.
  redis.call('zremrangebyscore', KEYS[4], '-inf', ARGV[5])
  redis.call('zadd', KEYS[4], ARGV[4], id)
  if redis.call('pttl', KEYS[4]) < tonumber(ARGV[6]) then redis.call('pexpire', KEYS[4], ARGV[6]) end
  return 0
end
wake(KEYS[5], redis.call('zcard', KEYS[2]), ARGV[3])
-- A missing count is rebuilt from the live leases on the next acquire; never create it without a TTL here.
if redis.call('exists', KEYS[1]) == 1 then
  -- Free permits and leases add up to the limit: after a changed limit (a reload) a permit held above a lowered
  -- limit frees nothing, and one held under a raised limit frees one of the raised count.
  local value = tonumber(ARGV[2]) - redis.call('zcard', KEYS[2])
  if value < 0 then value = 0 end
  redis.call('set', KEYS[1], value, 'KEEPTTL')
  if value >= 1 then wake(KEYS[3], value, ARGV[3]) end
end
return 1
