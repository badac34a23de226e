-- Sluice concurrency acquire over the state of Redisson's RPermitExpirableSemaphore, in one round trip.
-- KEYS[1] available count, KEYS[2] {name}:timeout (permit id -> lease expiry), KEYS[3] wake-up channel,
-- KEYS[4] {name}:released (permit id -> until when an acquire of it takes nothing), KEYS[5] Sluice's wake-up channel.
-- ARGV[1] limit, ARGV[2] lease expiry (ms), ARGV[3] now (ms), ARGV[4] permit id (hex), ARGV[5] key TTL (ms),
-- ARGV[6] how to wake waiters (see wake).
-- Returns {acquired (1|0), permits available afterwards, the earliest lease expiry (ms; -1 for none)}.
-- Redisson's waiters are woken with wake(channel, value, ARGV[6]), Sluice's with wake(KEYS[5], leases held, ARGV[6]):
-- each of Sluice's waiters has its own limit (its plan's), so it is told what is held, not what is free.
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[3])
local id = ARGV[4]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)

-- The engine gave up on this permit and released it before this acquire arrived (a late script): take nothing.
local released = redis.call('zscore', KEYS[4], id)
if released and tonumber(released) > now then return {0, 0, -1} end
-- A retry of an acquire that Redis ran already (a waiter's attempt answered too late): the permit is held once.
if redis.call('zscore', KEYS[2], id) then
  return {1, tonumber(redis.call('get', KEYS[1]) or 0), -1}
end

local expired = redis.call('zrangebyscore', KEYS[2], 0, now)
if #expired > 0 then
  redis.call('zrem', KEYS[2], unpack(expired))
  if redis.call('exists', KEYS[1]) == 1 then
    redis.call('incrby', KEYS[1], #expired)
  end
end

-- Free permits and live leases always add up to the limit. When they do not, the limit changed (a reload: the
-- permits held stay held, the free count moves by the difference, and permits held above a lowered limit just
-- drain) or one of the two keys was lost (first use, FLUSHALL, eviction, a stale replica): the live leases are
-- the truth, so a lost lease set never leaves a count at 0 that every request keeps alive and that would deny
-- forever.
local value = redis.call('get', KEYS[1])
local free = limit - redis.call('zcard', KEYS[2])
if free < 0 then free = 0 end
local grown = false
if value == false or tonumber(value) ~= free then
  grown = value ~= false and free > tonumber(value)
  value = free
  redis.call('set', KEYS[1], value)
else
  value = tonumber(value)
end

local acquired = 0
if value >= 1 then
  redis.call('zadd', KEYS[2], ARGV[2], id)
  value = redis.call('decrby', KEYS[1], 1)
  acquired = 1
  -- A raised limit freed permits that Redisson's waiting acquirers have not been told about.
  if grown and value >= 1 then wake(KEYS[3], value, ARGV[6]) end
elseif #expired > 0 then
  wake(KEYS[3], value, ARGV[6])
end
if #expired > 0 or grown then wake(KEYS[5], redis.call('zcard', KEYS[2]), ARGV[6]) end
redis.call('pexpire', KEYS[1], ARGV[5])
local earliest = -1
if redis.call('exists', KEYS[2]) == 1 then
  redis.call('pexpire', KEYS[2], ARGV[5])
  earliest = tonumber(redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')[2])
end
return {acquired, value, earliest}
