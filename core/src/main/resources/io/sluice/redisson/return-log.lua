-- Hands back permits a server prefetched from a sliding log and did not use: removes exactly those log entries
-- (by id, so another server's entries and real requests' stay) and credits the counter with what was removed.
-- KEYS[1] {name}:value, KEYS[2] {name}:permits (the log). ARGV[1] the prefetch's entry id, ARGV[2] how many entries
-- its run asked for (ids carry ':'..i when more than one), ARGV[3] and ARGV[4] the first and last index to remove.
-- Returns the permits handed back (fewer when entries were gone already: a lost log, a FLUSHALL).
local id = ARGV[1]
local run = tonumber(ARGV[2])
local removed = 0
for i = tonumber(ARGV[3]), tonumber(ARGV[4]) do
  local entry = run == 1 and id or id .. ':' .. i
  removed = removed + redis.call('zrem', KEYS[2], struct.pack('Bc0I', string.len(entry), entry, 1))
end
if removed > 0 and redis.call('exists', KEYS[1]) == 1 then redis.call('incrby', KEYS[1], removed) end
return removed
