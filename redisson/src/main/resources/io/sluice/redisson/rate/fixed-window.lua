-- Sluice fixed window: one counter per window, windows aligned to multiples of the period.
-- KEYS[1] state "<window index>:<count>".
-- ARGV[1] now in ms, or '' for Redis TIME (production always passes ''); ARGV[2] period (ms);
-- ARGV[3] limit, ARGV[4] effective limit (soft/elastic), ARGV[5] cost, ARGV[6] '1' to refund cost, '2' to charge it
-- whatever is left (a request settled past its estimate: the counter may pass the limit, a debt the window's end clears).
-- Returns {allowed, remaining, reset ms, retry-after ms (-1: never fits), 0, over the nominal limit}.
-- io.sluice.memory.FixedWindowModel is the same computation in Java, operation for operation.
-- (redis-time.lua, prepended on load, has set now and SLACK_MS.)
local period = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local eff = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])
-- Exact integer window index: the division of two exact doubles, corrected by exact products.
local w = math.floor(now / period)
if w * period > now then w = w - 1 elseif (w + 1) * period <= now then w = w + 1 end
local finish = (w + 1) * period

local n = 0
local state = redis.call('GET', KEYS[1])
if state then
  local sw, sn = string.match(state, '^(%d+):(%d+)$')
  if sw and tonumber(sw) == w then n = tonumber(sn) end
end
local function store()
  redis.call('SET', KEYS[1], string.format('%.0f:%.0f', w, n), 'PX', math.ceil((finish - now) / 1000) + SLACK_MS)
end

if ARGV[6] == '1' then
  if n > 0 then
    n = math.max(0, n - cost)
    store()
  end
  return {1, 0, 0, 0, 0, 0}
end

if ARGV[6] == '2' then
  n = n + cost
  store()
  return {1, 0, 0, 0, 0, 0}
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
return {allowed, remaining, reset, retry, 0, over}
