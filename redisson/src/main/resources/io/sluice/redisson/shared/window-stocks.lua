-- Shared opening of the window counters' scripts (prepended after redis-time.lua): the stocks of permits a counter
-- lent to servers (prefetches), kept in the key's state after its counters. "|<id>,<window>,<permits>,<until, us>" is
-- a stock taken in window <window> (its index) and not handed back yet, so that its hand-back lowers exactly the
-- counter it raised; it is kept while its window counts (a fixed window: the window itself; a sliding window: it and
-- the next, where it is the previous window) and its hand-back may still come (until <until>: its hold and a grace,
-- as a token bucket's loan; a server that stopped hands back nothing at all), then counts as used. A stock the server
-- used up is forgotten by its next prefetch of the key (lendStock): it hands back nothing of it, and carrying it to
-- its lapse would make every call of a busy key read and rewrite hundreds of entries (issue 26). "!<id>,<until, us>"
-- is a tombstone: a hand-back that came before its prefetch (one Sluice gave up on), so that the prefetch, if Redis
-- runs it after all, takes nothing.
local stocks = {}
local tombstones = {}
-- Reads the entries after the counters: stocks of window `from` and later not lapsed, tombstones not ended.
local function readStocks(rest, from)
  for id, sw, permits, untilAt in string.gmatch(rest, '|([^,|!]+),(%d+),(%d+),(%d+)') do
    if tonumber(sw) >= from and tonumber(untilAt) > now then
      stocks[#stocks + 1] = {id, tonumber(sw), tonumber(permits), tonumber(untilAt)}
    end
  end
  for id, untilAt in string.gmatch(rest, '!([^,|!]+),(%d+)') do
    if tonumber(untilAt) > now then tombstones[#tombstones + 1] = {id, tonumber(untilAt)} end
  end
end
-- The entries as stored after the counters.
local function stocksText()
  local parts = {}
  for _, s in ipairs(stocks) do parts[#parts + 1] = string.format('|%s,%.0f,%.0f,%.0f', s[1], s[2], s[3], s[4]) end
  for _, t in ipairs(tombstones) do parts[#parts + 1] = string.format('!%s,%.0f', t[1], t[2]) end
  return table.concat(parts)
end
-- Microseconds the state must still live for its tombstones (0: none).
local function tombstonesLeft()
  local last = 0
  for _, t in ipairs(tombstones) do last = math.max(last, t[2] - now) end
  return last
end
-- The place in `list` of the entry under id, or nil.
local function entryOf(list, id)
  for i, e in ipairs(list) do
    if e[1] == id then return i end
  end
  return nil
end
-- A hand-back of stock id: the stock, taken out of the state (nil when none is lent under id: then a tombstone for
-- `lasts` ms, unless there is one already). Each hand-back acts once.
local function handedBack(id, lasts)
  local i = entryOf(stocks, id)
  if i then return table.remove(stocks, i) end
  if not entryOf(tombstones, id) then tombstones[#tombstones + 1] = {id, now + lasts * 1000} end
  return nil
end
-- Whether a prefetch under id was handed back before it ran (its tombstone then goes: it has met its prefetch).
local function givenUp(id)
  local i = entryOf(tombstones, id)
  if i then table.remove(tombstones, i) end
  return i ~= nil
end
-- Forgets the stocks a server used up, their ids separated by ',' in `ids`: nothing of them comes back, so their
-- entries go and no counter changes; an id not lent (any more) is left alone, with no tombstone. Whether any went.
local function forgetUsedUp(ids)
  local any = false
  for id in string.gmatch(ids or '', '[^,]+') do
    local i = entryOf(stocks, id)
    if i then
      table.remove(stocks, i)
      any = true
    end
  end
  return any
end
-- A prefetch's loan, the one way both counters lend: forgets the used-up stocks `usedUp` first (forgetUsedUp), then
-- lends up to `upTo` of the `room` permits that fit under id for `lentMs` ms (its hold and a grace), counted in window
-- `window`, unless its hand-back came first (givenUp: it takes nothing). Returns how many it took, which the caller
-- adds to its counter, and whether the state changed, which the caller then stores once.
local function lendStock(upTo, room, id, window, lentMs, usedUp)
  local changed = forgetUsedUp(usedUp)
  if givenUp(id) then return 0, true end
  local taken = math.max(0, math.min(upTo, room))
  if taken > 0 then
    stocks[#stocks + 1] = {id, window, taken, now + lentMs * 1000}
    changed = true
  end
  return taken, changed
end
