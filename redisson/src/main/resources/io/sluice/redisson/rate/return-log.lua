-- Hands back permits a server prefetched from a sliding log and did not use: its prefetch is one log entry (id,
-- permits), which loses exactly those permits (removed when none are left) at the time it counts from, and the
-- counter is credited with them. Another server's entries and real requests' stay as they are. The used permits, when
-- the server tells when it used them, are logged again at those times (the entry counted them from the hold's end
-- while the stock was out): each then leaves the window when it would have without prefetch. A time already out of
-- the window is released by the next decision, as any entry that ages out. A use's entry is named by the stock's id and
-- how long before the entry's time it was (id:ms), so that a give-back of a permit used then finds it
-- (refund-log.lua); uses at the entry's time stay under the id.
-- KEYS[1] {name}:value, KEYS[2] {name}:permits (the log). ARGV[1] the prefetch's entry id, ARGV[2] its permits,
-- ARGV[3] how many of them to hand back, then pairs: permits used, ms before the entry's time they were used.
-- Returns the permits handed back: 0 when the entry is gone (it left the window, a lost log, a FLUSHALL).
local id = ARGV[1]
local permits = tonumber(ARGV[2])
local unused = tonumber(ARGV[3])
local entry = struct.pack('Bc0I', string.len(id), id, permits)
local at = redis.call('zscore', KEYS[2], entry)
if not at then return 0 end
at = tonumber(at)
redis.call('zrem', KEYS[2], entry)
local kept = permits - unused
-- Uses at one time are one entry, named by that time, so that a give-back of a permit used then (refund-log.lua)
-- finds it.
local usedAt = {}
local times = {}
local i = 4
while ARGV[i + 1] ~= nil and kept > 0 do
  local used = math.min(tonumber(ARGV[i]), kept)
  local before = ARGV[i + 1]
  if used > 0 and tonumber(before) > 0 then
    if usedAt[before] == nil then
      usedAt[before] = 0
      times[#times + 1] = before
    end
    usedAt[before] = usedAt[before] + used
    kept = kept - used
  end
  i = i + 2
end
for _, before in ipairs(times) do
  local useId = id .. ':' .. before
  redis.call('zadd', KEYS[2], at - tonumber(before), struct.pack('Bc0I', string.len(useId), useId, usedAt[before]))
end
-- Used permits not told (or used at the hold's end) stay at the entry's time.
if kept > 0 then
  redis.call('zadd', KEYS[2], at, struct.pack('Bc0I', string.len(id), id, kept))
end
if unused > 0 and redis.call('exists', KEYS[1]) == 1 then redis.call('incrby', KEYS[1], unused) end
return unused
