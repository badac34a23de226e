-- Sluice sliding window counter: the current and the previous fixed window, the previous weighted by its
-- overlap with the rolling window (9 x 0.75 + 5 = 14.75 of 10: rejected).
-- KEYS[1] state "<window index>:<count in it>:<count in the window before>", then the stocks lent to servers and
-- tombstones (window-stocks.lua).
-- ARGV[1] now in ms, or '' for Redis TIME (production always passes ''); ARGV[2] period (ms);
-- ARGV[3] limit, ARGV[4] effective limit (soft/elastic), ARGV[5] cost, ARGV[6] '1' to refund cost, '2' to charge it
-- whatever is left (a request settled past its estimate: the counter may pass the limit until the windows slide).
-- ARGV[7] a prefetch: up to this many permits of cost 1 (0: not one), as many as fit, counted in the window of now and
-- lent under id ARGV[8] for ARGV[9] ms (its hold and a grace), answered once with how many were taken in place of
-- "allowed", and in place of the delay how
-- long (ms) the stock may be handed out: until its window ends (rounded down: past it, its permits would be used in a
-- window that never counted them), and no longer than the answer's reset, when the key's next permit frees (the
-- previous window sliding out), so that a request the stock pays has the remaining the backend would answer it.
-- With ARGV[6] '1' and an id in ARGV[8]: the hand-back of that stock, up to cost of its permits, off the counter of
-- its window, the current one or now the previous one (whose weight then lowers the estimate exactly as the stock
-- raised it; an older window counts nothing), once, answering as its second number how much the key's remaining rose
-- (the previous window's weight times the permits, rounded as the remaining is: maybe less); ARGV[9] then how long
-- (ms) the tombstone of a hand-back that finds no stock lasts. ARGV[10] a refund's window: the index its admitted
-- answer named ('' unknown); the cost comes
-- off that window's counter, the current one or now the previous one (which still weighs in), an older one counting
-- nothing any more; its answer's first number is then 1 when a counter got permits back, else 0, its second how much
-- the key's remaining rose (the previous window's weight times the cost, rounded as the remaining is: maybe less).
-- ARGV[11] with a prefetch: the ids of stocks of the key the server used up, separated by ',' ('' none), forgotten
-- first (window-stocks.lua's lendStock).
-- Returns {allowed, remaining, reset ms, retry-after ms (-1: never fits), 0, over the nominal limit, the current
-- window's index} (the index names where an admitted request was counted, for its refund).
-- io.sluice.memory.SlidingWindowModel is the same computation in Java, operation for operation.
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
local w = math.floor(now / period)
if w * period > now then w = w - 1 elseif (w + 1) * period <= now then w = w + 1 end
local e = now - w * period

local cur = 0
local prev = 0
local state = redis.call('GET', KEYS[1])
if state then
  local sw, sc, sp, rest = string.match(state, '^(%d+):(%d+):(%d+)(.*)$')
  if sw then
    sw = tonumber(sw)
    if sw == w then
      cur = tonumber(sc)
      prev = tonumber(sp)
    elseif sw == w - 1 then
      prev = tonumber(sc)
    end
    readStocks(rest, w - 1)
  end
end
local function store()
  local live = math.max((w + 2) * period - now, tombstonesLeft())
  redis.call('SET', KEYS[1], string.format('%.0f:%.0f:%.0f', w, cur, prev) .. stocksText(),
    'PX', math.ceil(live / 1000) + SLACK_MS)
end

if ARGV[6] == '1' and stockId ~= '' then
  local s = handedBack(stockId, lentMs)
  local before = math.max(0, math.floor(limit - (prev * (period - e) / period + cur)))
  if s and s[2] == w then
    cur = math.max(0, cur - math.min(cost, s[3]))
  elseif s and s[2] == w - 1 then
    prev = math.max(0, prev - math.min(cost, s[3]))
  end
  store()
  return {1, math.max(0, math.floor(limit - (prev * (period - e) / period + cur))) - before, 0, 0, 0, 0, w}
end

if ARGV[6] == '1' then
  local back = 0
  local before = math.max(0, math.floor(limit - (prev * (period - e) / period + cur)))
  if state and (counted == nil or counted == w) then
    if cur > 0 then back = 1 end
    cur = math.max(0, cur - cost)
    store()
  elseif state and counted == w - 1 then
    if prev > 0 then back = 1 end
    prev = math.max(0, prev - cost)
    store()
  end
  local rose = 0
  if back == 1 then rose = math.max(0, math.floor(limit - (prev * (period - e) / period + cur))) - before end
  return {back, rose, 0, 0, 0, 0, w}
end

if ARGV[6] == '2' then
  cur = cur + cost
  store()
  return {1, 0, 0, 0, 0, 0, w}
end

-- Microseconds until `need` more permits fit under `cap`, the previous window's weight sliding out.
local function wait(need, cap)
  if need > cap then return (w + 2) * period - now end
  if prev * (period - e) / period + cur + need <= cap then return 0 end
  local a = cap - cur - need
  if a >= 0 then return period - a * period / prev - e end
  local b = cap - need
  if cur <= b then return period - e end
  return period - e + period - b * period / cur
end

if upTo > 0 then
  local room = math.floor(eff - (prev * (period - e) / period + cur))
  local taken, changed = lendStock(upTo, room, stockId, w, lentMs, usedUp)
  cur = cur + taken
  if changed then store() end
  local retry = 0
  if taken < upTo then retry = math.ceil(wait(1, eff) / 1000) end
  local estimate = prev * (period - e) / period + cur
  local remaining = math.max(0, math.floor(limit - estimate))
  local reset = 0
  if cur > 0 or prev > 0 then reset = math.ceil(wait(remaining + 1, limit) / 1000) end
  local lasts = math.floor(((w + 1) * period - now) / 1000)
  if reset > 0 and reset < lasts then lasts = reset end
  return {taken, remaining, reset, retry, lasts, 0, w}
end

local allowed = 0
local retry = 0
if cost > eff then
  retry = -1
elseif prev * (period - e) / period + cur + cost <= eff then
  allowed = 1
  cur = cur + cost
  store()
else
  retry = math.ceil(wait(cost, eff) / 1000)
end
local estimate = prev * (period - e) / period + cur
local remaining = math.max(0, math.floor(limit - estimate))
local over = 0
if allowed == 1 and estimate > limit then over = 1 end
local reset = 0
if cur > 0 or prev > 0 then reset = math.ceil(wait(remaining + 1, limit) / 1000) end
return {allowed, remaining, reset, retry, 0, over, w}
