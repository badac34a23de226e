-- Returns a permit exactly once: a second release, or one of an expired (reclaimed) permit, changes nothing.
-- KEYS[1] available count, KEYS[2] {name}:timeout, KEYS[3] wake-up channel. ARGV[1] permit id (hex), ARGV[2] limit,
-- ARGV[3] how to wake waiters (see wake).
-- Wakes Redisson's waiting acquirers the way Redisson's own semaphore does: ARGV[3] is 'publish', or
-- 'spublish' where Redisson subscribed them to sharded channels (a Redis 7 Cluster), or 'both' when the client
-- could not say (SPUBLISH is unknown before Redis 7: pcall ignores that).
local function wake(channel, value, how)
  if how == 'spublish' then
    redis.call('spublish', channel, value)
  elseif how == 'both' then
    redis.call('publish', channel, value)
    pcall(redis.call, 'spublish', channel, value)
  else
    redis.call('publish', channel, value)
  end
end
local id = ARGV[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)
if redis.call('zrem', KEYS[2], id) == 0 then return 0 end
-- A missing count is rebuilt from the live leases on the next acquire; never create it without a TTL here.
if redis.call('exists', KEYS[1]) == 1 then
  local value = redis.call('incrby', KEYS[1], 1)
  if value > tonumber(ARGV[2]) then redis.call('set', KEYS[1], ARGV[2], 'KEEPTTL') end
  wake(KEYS[3], value, ARGV[3])
end
return 1
