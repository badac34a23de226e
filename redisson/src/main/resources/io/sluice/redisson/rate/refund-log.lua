-- Hands back permits a sliding-log decision took (an elastic request its capacity rule could not pay for, a
-- request another rule rejected, a request whose ending its rule does not count, a waiter whose wait ended, a decision
-- answered after its deadline) and credits the counter.
-- With the decision's entry id (the id rate.lua logged it under, which its answer carried): that entry and no other,
-- so a late refund never frees a later request's permits; none when it has left the window (its permits are free
-- already) or the log was lost.
-- Without one (a caller that does not know it): the newest log entry of exactly that many permits, which is the
-- request's own only while no later request of that cost has come. A prefetched stock's entry (its id starts with 's')
-- is never one: its server still holds its permits, and hands back by its id what it does not use.
-- KEYS[1] {name}:value, KEYS[2] {name}:permits (the log). ARGV[1] permits to hand back, ARGV[2] the entry's id (absent
-- or '': unknown).
-- Returns 1 when an entry was removed, 0 when none was found.
local MAX_SCANNED = 64
local want = tonumber(ARGV[1])
local id = ARGV[2] or ''
local function remove(v)
  redis.call('zrem', KEYS[2], v)
  if redis.call('exists', KEYS[1]) == 1 then redis.call('incrby', KEYS[1], want) end
  return 1
end
if id ~= '' then
  local entry = struct.pack('Bc0I', string.len(id), id, want)
  if redis.call('zscore', KEYS[2], entry) then return remove(entry) end
  return 0
end
-- ZRANGE ... REV (Redis 6.2+) rather than ZREVRANGE: the commands an ACL user needs stay the documented few.
for _, v in ipairs(redis.call('zrange', KEYS[2], 0, MAX_SCANNED - 1, 'REV')) do
  local entryId, permits = struct.unpack('Bc0I', v)
  if permits == want and string.sub(entryId, 1, 1) ~= 's' then return remove(v) end
end
return 0
