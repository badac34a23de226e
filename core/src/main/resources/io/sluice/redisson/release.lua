-- Returns a permit exactly once: a second release, or one of an expired (reclaimed) permit, changes nothing.
-- KEYS[1] available count, KEYS[2] {name}:timeout, KEYS[3] wake-up channel. ARGV[1] permit id (hex), ARGV[2] limit
-- (the rule's current one), ARGV[3] how to wake waiters (see wake).
-- Waiters are woken with wake(channel, value, ARGV[3]), from wake.lua (prepended on load).
local id = ARGV[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)
if redis.call('zrem', KEYS[2], id) == 0 then return 0 end
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
