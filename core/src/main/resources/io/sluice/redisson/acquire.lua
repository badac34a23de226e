-- Sluice concurrency acquire over the state of Redisson's RPermitExpirableSemaphore, in one round trip.
-- KEYS[1] available count, KEYS[2] {name}:timeout (permit id -> lease expiry), KEYS[3] wake-up channel.
-- ARGV[1] limit, ARGV[2] lease expiry (ms), ARGV[3] now (ms), ARGV[4] permit id (hex), ARGV[5] key TTL (ms),
-- ARGV[6] how to wake waiters (see wake).
-- Returns {acquired (1|0), permits available afterwards}.
-- Waiters are woken with wake(channel, value, ARGV[6]), from wake.lua (prepended on load).
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[3])

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
  local id = ARGV[4]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)
  redis.call('zadd', KEYS[2], ARGV[2], id)
  value = redis.call('decrby', KEYS[1], 1)
  acquired = 1
  -- A raised limit freed permits that Redisson's waiting acquirers have not been told about.
  if grown and value >= 1 then wake(KEYS[3], value, ARGV[6]) end
elseif #expired > 0 then
  wake(KEYS[3], value, ARGV[6])
end
redis.call('pexpire', KEYS[1], ARGV[5])
if redis.call('exists', KEYS[2]) == 1 then redis.call('pexpire', KEYS[2], ARGV[5]) end
return {acquired, value}
