-- Hands back permits a server prefetched from a sliding log and did not use: its prefetch is one log entry (id,
-- permits), which loses exactly those permits (removed when none are left) at the time it counts from, and the
-- counter is credited with them. Another server's entries and real requests' stay as they are.
-- KEYS[1] {name}:value, KEYS[2] {name}:permits (the log). ARGV[1] the prefetch's entry id, ARGV[2] its permits,
-- ARGV[3] how many of them to hand back.
-- Returns the permits handed back: 0 when the entry is gone (it left the window, a lost log, a FLUSHALL).
local id = ARGV[1]
local permits = tonumber(ARGV[2])
local unused = tonumber(ARGV[3])
local entry = struct.pack('Bc0I', string.len(id), id, permits)
local at = redis.call('zscore', KEYS[2], entry)
if not at then return 0 end
redis.call('zrem', KEYS[2], entry)
if permits > unused then
  redis.call('zadd', KEYS[2], at, struct.pack('Bc0I', string.len(id), id, permits - unused))
end
if redis.call('exists', KEYS[1]) == 1 then redis.call('incrby', KEYS[1], unused) end
return unused
