-- Hands back permits a sliding-log decision took (an elastic request its capacity rule could not pay for, a
-- request another rule rejected, a request whose ending its rule does not count, a waiter whose wait ended, a decision
-- answered after its deadline) and credits the counter.
-- With the decision's entry id (the id rate.lua logged it under, which its answer carried): that entry and no other,
-- so a late refund never frees a later request's permits; none when it has left the window (its permits are free
-- already) or the log was lost.
-- Without one (a caller that does not know it): the newest log entry of exactly that many permits, which is the
-- request's own only while no later request of that cost has come. A prefetched stock's entry (its id starts with 's')
-- is never one: its server still holds its permits, and hands back by its id what it does not use.
-- With a prefetched stock's use (stockId@ms, the permits its server paid from the stock that long before the hold's end,
-- given back after the stock was): return-log.lua logged each use under stockId:ms, those at the hold's end under the
-- stock's id, and a use kept among too many merged into the next one; so the permits leave the stock's entry of the
-- largest ms up to the use's (its own use, or the one it merged into), which loses just that many. None when the
-- stock's entries are gone (they left the window, or the log was lost).
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
-- ZSCAN's page size: the log is walked a page at a time (a stock's use is given back after its hold, seldom).
local SCAN_PAGE = 256
local mark = string.find(id, '@', 1, true)
if mark then
  local stock = string.sub(id, 1, mark - 1)
  local usedBefore = tonumber(string.sub(id, mark + 1))
  local prefix = stock .. ':'
  local found, foundPermits, foundBefore = nil, 0, -1
  local cursor = '0'
  repeat
    -- Entries are packed as (length byte, id, permits): any first byte, then the stock's id.
    local page = redis.call('zscan', KEYS[2], cursor, 'MATCH', '?' .. stock .. '*', 'COUNT', SCAN_PAGE)
    cursor = page[1]
    for i = 1, #page[2], 2 do
      local v = page[2][i]
      local entryId, permits = struct.unpack('Bc0I', v)
      local before = nil
      if entryId == stock then
        before = 0
      elseif string.sub(entryId, 1, #prefix) == prefix then
        before = tonumber(string.sub(entryId, #prefix + 1))
      end
      if before ~= nil and before <= usedBefore and before > foundBefore then
        found, foundPermits, foundBefore = v, permits, before
      end
    end
  until cursor == '0'
  if found == nil then return 0 end
  local entryId = struct.unpack('Bc0I', found)
  local at = redis.call('zscore', KEYS[2], found)
  redis.call('zrem', KEYS[2], found)
  local off = math.min(want, foundPermits)
  if foundPermits > off then
    redis.call('zadd', KEYS[2], at, struct.pack('Bc0I', string.len(entryId), entryId, foundPermits - off))
  end
  if redis.call('exists', KEYS[1]) == 1 then redis.call('incrby', KEYS[1], off) end
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
