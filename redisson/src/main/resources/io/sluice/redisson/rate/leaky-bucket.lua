-- Sluice leaky bucket: requests leave at a constant pace; up to `queue` wait for a future slot.
-- KEYS[1] state "<next free slot, us>:<effective limit it was computed with>".
-- ARGV[1] now in ms, or '' for Redis TIME (production always passes ''); ARGV[2] period (ms);
-- ARGV[3] effective limit (the pace: one request every period / limit), ARGV[4] queue, ARGV[5] cost.
-- Returns {allowed, remaining, reset ms, retry-after ms (-1: never fits), delay ms until the slot, 0, the end of the
-- slot taken (us; 0 when rejected)}: the entry undo-slot.lua gives the slot back by (a late answer's, issue 21).
-- io.sluice.memory.LeakyBucketModel is the same computation in Java, operation for operation.
-- (redis-time.lua, prepended on load, has set now and SLACK_MS.)
local period = tonumber(ARGV[2]) * 1000
local eff = tonumber(ARGV[3])
local queue = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])
local interval = period / eff
local room = queue * interval

local tat = now
local rescaled = false
local state = redis.call('GET', KEYS[1])
if state then
  local t, l = string.match(state, '^(%d+):(%d+)$')
  if t then
    tat = tonumber(t)
    local stored = tonumber(l)
    -- A changed pace keeps the requests queued, not the time owed; stored at once (see token-bucket.lua).
    if stored ~= eff and tat > now then
      tat = math.ceil(now + (tat - now) * stored / eff)
      rescaled = true
    end
  end
end
local function store(newTat)
  redis.call('SET', KEYS[1], string.format('%.0f:%.0f', newTat, eff), 'PX', math.ceil((newTat - now) / 1000) + SLACK_MS)
end
local slot = math.max(tat, now)
local wait = slot - now

local allowed = 0
local retry = 0
local delay = 0
local tatF = tat
-- A cost of more than one period of pace never fits (the engine never sends it; checked here too, so no TTL
-- overflows), and is rejected as any other.
if cost <= eff and wait <= room then
  allowed = 1
  delay = math.ceil(wait / 1000)
  tatF = math.ceil(slot + cost * interval)
  store(tatF)
else
  -- The first free slot is `room` before the last taken one.
  retry = math.ceil((wait - room) / 1000)
  if cost > eff then retry = -1 end
  if rescaled then store(tat) end
end
local d = tatF - now
local remaining = 0
if d <= 0 then
  remaining = queue + 1
elseif d <= room then
  remaining = math.floor((room - d) / interval) + 1
end
local reset = 0
if d > 0 then reset = math.ceil((d - room + remaining * interval) / 1000) end
local slotEnd = 0
if allowed == 1 then slotEnd = tatF end
return {allowed, remaining, reset, retry, delay, 0, slotEnd}
