-- Sluice fixed window: one counter per window, windows aligned to multiples of the period.
-- KEYS[1] state "<window index>:<count>", then the stocks lent to servers and tombstones (window-stocks.lua).
-- ARGV[1] now in ms, or '' for Redis TIME (production always passes ''); ARGV[2] period (ms);
-- ARGV[3] limit, ARGV[4] effective limit (soft/elastic), ARGV[5] cost, ARGV[6] '1' to refund cost, '2' to charge it
-- whatever is left (a request settled past its estimate: the counter may pass the limit, a debt the window's end clears).
-- ARGV[7] a prefetch: up to this many permits of cost 1 (0: not one), as many as fit, counted in the window of now and
-- lent under id ARGV[8] for ARGV[9] ms (its hold and a grace), answered once with how many were taken in place of
-- "allowed", and in place of the delay how long (ms, rounded down) the stock may be handed out: until its window
-- ends, after which its permits would be used in a window that never counted them. With ARGV[6] '1' and an id in
-- ARGV[8]: the hand-back of that stock, up to cost of its permits, off its window's counter while that window is the
-- current one (a window gone counts nothing), once, answering as its second number how much the key's remaining rose
-- (0 for a window gone); ARGV[9] then how long (ms) the tombstone of a hand-back that finds no stock lasts. ARGV[10] a refund's window: the index its admitted answer named ('' unknown); the cost comes off
-- the counter only while that window is the current one (a window gone counts nothing any more, and a later one never
-- counted the request); its answer's first number is then 1 when a counter got permits back, else 0. ARGV[11] with a
-- prefetch: the ids of stocks of the key the server used up, separated by ',' ('' none), forgotten first
-- (window-stocks.lua's lendStock).
-- Returns {allowed, remaining, reset ms, retry-after ms (-1: never fits), 0, over the nominal limit, the window's
-- index} (the index names where an admitted request was counted, for its refund).
-- io.sluice.memory.FixedWindowModel is the same computation in Java, operation for operation.
-- (redis-time.lua and window-stocks.lua, prepended on load, have set now, SLACK_MS and the stocks' functions.)
local period = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local eff = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])
local upTo = tonumber(ARGV[7]) or 0
local stockId = ARGV[8] or ''
local lentMs = tonumber(ARGV[9]) or 0
local counted = tonumber(ARGV[10] or '')
local usedUp = ARGV[11] or ''
-- Exact integer window index: the division of two exact doubles, corrected by exact products.
local w = math.floor(now / period)
if w * period > now then w = w - 1 elseif (w + 1) * period <= now then w = w + 1 end
local finish = (w + 1) * period

local n = 0
local state = redis.call('GET', KEYS[1])
if state then
  local sw, sn, rest = string.match(state, '^(%d+):(%d+)(.*)$')
  if sw and tonumber(sw) == w then n = tonumber(sn) end
  if sw then readStocks(rest, w) end
end
local function store()
  local live = math.max(finish - now, tombstonesLeft())
  redis.call('SET', KEYS[1], string.format('%.0f:%.0f', w, n) .. stocksText(), 'PX', math.ceil(live / 1000) + SLACK_MS)
end

if ARGV[6] == '1' and stockId ~= '' then
  local s = handedBack(stockId, lentMs)
  local before = math.max(0, limit - n)
  if s and s[2] == w then n = math.max(0, n - math.min(cost, s[3])) end
  store()
  return {1, math.max(0, limit - n) - before, 0, 0, 0, 0, w}
end

if ARGV[6] == '1' then
  local back = 0
  if n > 0 and (counted == nil or counted == w) then
    n = math.max(0, n - cost)
    back = 1
    store()
  end
  return {back, 0, 0, 0, 0, 0, w}
end

if ARGV[6] == '2' then
  n = n + cost
  store()
  return {1, 0, 0, 0, 0, 0, w}
end

if upTo > 0 then
  local taken, changed = lendStock(upTo, eff - n, stockId, w, lentMs, usedUp)
  n = n + taken
  if changed then store() end
  local retry = 0
  if taken < upTo then retry = math.ceil((finish - now) / 1000) end
  local reset = 0
  if n > 0 then reset = math.ceil((finish - now) / 1000) end
  return {taken, math.max(0, limit - n), reset, retry, math.floor((finish - now) / 1000), 0, w}
end

local allowed = 0
local retry = 0
if cost > eff then
  retry = -1
elseif n + cost <= eff then
  allowed = 1
  n = n + cost
  store()
else
  retry = math.ceil((finish - now) / 1000)
end
local remaining = math.max(0, limit - n)
local over = 0
if allowed == 1 and n > limit then over = 1 end
local reset = 0
if n > 0 then reset = math.ceil((finish - now) / 1000) end
return {allowed, remaining, reset, retry, 0, over, w}
