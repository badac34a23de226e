-- Returns a permit exactly once: a second release, or one of an expired (reclaimed) permit, changes nothing.
-- KEYS[1] available count, KEYS[2] {name}:timeout, KEYS[3] wake-up channel. ARGV[1] permit id (hex), ARGV[2] limit,
-- ARGV[3] how to wake waiters (see wake).
-- Waiters are woken with wake(channel, value, ARGV[3]), from wake.lua (prepended on load).
local id = ARGV[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)
if redis.call('zrem', KEYS[2], id) == 0 then return 0 end
-- A missing count is rebuilt from the live leases on the next acquire; never create it without a TTL here.
if redis.call('exists', KEYS[1]) == 1 then
  local value = redis.call('incrby', KEYS[1], 1)
  if value > tonumber(ARGV[2]) then redis.call('set', KEYS[1], ARGV[2], 'KEEPTTL') end
  wake(KEYS[3], value, ARGV[3])
end
return 1
