-- Hands back permits a sliding-log decision took (an elastic request its capacity rule could not pay for, a
-- request another rule rejected, a decision answered after its deadline): removes the newest log entry of exactly
-- that many permits and credits the counter. A prefetched stock's entry (its id starts with 's') is never one: its
-- server still holds its permits, and hands back by its id what it does not use.
-- KEYS[1] {name}:value, KEYS[2] {name}:permits (the log). ARGV[1] permits to hand back.
-- Returns 1 when an entry was removed, 0 when none was found (it left the window already).
local MAX_SCANNED = 64
local want = tonumber(ARGV[1])
-- ZRANGE ... REV (Redis 6.2+) rather than ZREVRANGE: the commands an ACL user needs stay the documented few.
for _, v in ipairs(redis.call('zrange', KEYS[2], 0, MAX_SCANNED - 1, 'REV')) do
  local id, permits = struct.unpack('Bc0I', v)
  if permits == want and string.sub(id, 1, 1) ~= 's' then
    redis.call('zrem', KEYS[2], v)
    if redis.call('exists', KEYS[1]) == 1 then redis.call('incrby', KEYS[1], want) end
    return 1
  end
end
return 0
