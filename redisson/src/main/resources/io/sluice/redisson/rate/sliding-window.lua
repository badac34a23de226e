-- Sluice sliding window counter: the current and the previous fixed window, the previous weighted by its
-- overlap with the rolling window (9 x 0.75 + 5 = 14.75 of 10: rejected).
-- KEYS[1] state "<window index>:<count in it>:<count in the window before>".
-- ARGV[1] now in ms, or '' for Redis TIME (production always passes ''); ARGV[2] period (ms);
-- ARGV[3] limit, ARGV[4] effective limit (soft/elastic), ARGV[5] cost, ARGV[6] '1' to refund cost, '2' to charge it
-- whatever is left (a request settled past its estimate: the counter may pass the limit until the windows slide).
-- Returns {allowed, remaining, reset ms, retry-after ms (-1: never fits), 0, over the nominal limit}.
-- io.sluice.memory.SlidingWindowModel is the same computation in Java, operation for operation.
-- (redis-time.lua, prepended on load, has set now and SLACK_MS.)
local period = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local eff = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])
local w = math.floor(now / period)
if w * period > now then w = w - 1 elseif (w + 1) * period <= now then w = w + 1 end
local e = now - w * period

local cur = 0
local prev = 0
local state = redis.call('GET', KEYS[1])
if state then
  local sw, sc, sp = string.match(state, '^(%d+):(%d+):(%d+)$')
  if sw then
    sw = tonumber(sw)
    if sw == w then
      cur = tonumber(sc)
      prev = tonumber(sp)
    elseif sw == w - 1 then
      prev = tonumber(sc)
    end
  end
end
local function store()
  redis.call('SET', KEYS[1], string.format('%.0f:%.0f:%.0f', w, cur, prev),
    'PX', math.ceil(((w + 2) * period - now) / 1000) + SLACK_MS)
end

if ARGV[6] == '1' then
  if state then
    cur = math.max(0, cur - cost)
    store()
  end
  return {1, 0, 0, 0, 0, 0}
end

if ARGV[6] == '2' then
  cur = cur + cost
  store()
  return {1, 0, 0, 0, 0, 0}
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
return {allowed, remaining, reset, retry, 0, over}
