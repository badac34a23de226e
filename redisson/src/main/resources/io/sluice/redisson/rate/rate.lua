-- Sluice rate decision over the state of Redisson's RRateLimiter (type OVERALL), in one round trip.
-- KEYS[1] limiter config hash, KEYS[2] {name}:value, KEYS[3] {name}:permits (the sliding log).
-- ARGV[1] permits wanted, ARGV[2] now (ms, caller's clock as Redisson uses), ARGV[3] unique entry id,
-- ARGV[4] rate, ARGV[5] interval (ms), ARGV[6] keep-alive (ms), ARGV[7] how far after now the new entries count
-- from (ms; permits a server prefetches are logged at the end of their hold, so the log keeps them in its window for
-- as long as a use of them could be); ARGV[8] a prefetch: up to this many requests (0: not one), logged as one entry
-- of all their permits under id ARGV[3] and answered once, with how many were admitted in place of "allowed";
-- ARGV[9] how many such requests at once (batch.lua passes a run of identical ones; absent: 1): each decided as if
-- alone, one after another, at this instant, with entry id ARGV[3]..':'..i when there are several.
-- Returns {allowed (1|0), remaining, ms until the oldest permit frees, ms until the wanted permits are free} for
-- each request, one after another.
local want = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local rate = tonumber(ARGV[4])
local interval = tonumber(ARGV[5])
local keepAlive = tonumber(ARGV[6])
local offset = tonumber(ARGV[7]) or 0
local upTo = tonumber(ARGV[8]) or 0
local count = tonumber(ARGV[9]) or 1
if upTo > 0 then count = upTo end

-- Missing (first use, expiry, FLUSHALL) or different config: write it as
-- RRateLimiter.trySetRate(OVERALL, rate, interval, keepAlive) does, so the limiter heals itself.
local cfg = redis.call('hmget', KEYS[1], 'rate', 'interval', 'type')
local fresh = false
if cfg[1] == false or cfg[2] == false or cfg[3] == false then
  redis.call('hset', KEYS[1], 'rate', rate, 'interval', interval, 'type', 0, 'keepAliveTime', keepAlive)
  fresh = true
elseif tonumber(cfg[2]) ~= interval or cfg[3] ~= '0' then
  -- Another window (edited by hand: Sluice's key names carry the period) counts other permits: start afresh.
  redis.call('hset', KEYS[1], 'rate', rate, 'interval', interval, 'type', 0, 'keepAliveTime', keepAlive)
  redis.call('del', KEYS[2], KEYS[3])
  fresh = true
elseif tonumber(cfg[1]) ~= rate then
  -- A changed limit (reload, plans, elastic borrowing) keeps the permits used in the window: the counter of free
  -- permits moves by the difference, and may go below 0 when the limit drops under the usage (it then climbs
  -- back as the log's entries leave the window, so the key is denied until its usage is under the new limit).
  redis.call('hset', KEYS[1], 'rate', rate, 'keepAliveTime', keepAlive)
  if redis.call('exists', KEYS[2]) == 1 then redis.call('incrby', KEYS[2], rate - tonumber(cfg[1])) end
end

-- A prefetch that Sluice gave up on (cancel-log.lua left its tombstone first) takes nothing.
if upTo > 0 and redis.call('hdel', KEYS[1], 'gone:' .. ARGV[3]) == 1 then count = 0 end

local function usedInLog()
  local used = 0
  for _, v in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do
    local _, permits = struct.unpack('Bc0I', v)
    used = used + permits
  end
  return used
end

local current = redis.call('get', KEYS[2])
-- The counter is written whole (SET, which drops its TTL) only when rebuilt; otherwise it is changed by
-- delta (INCRBY keeps the TTL).
local rewrite = false
local delta = 0
if current == false then
  -- The counter is gone but the log may not be: rebuild from the log, never from thin air.
  redis.call('zremrangebyscore', KEYS[3], 0, now - interval)
  current = rate - usedInLog()
  rewrite = true
else
  current = tonumber(current)
  local expired = redis.call('zrangebyscore', KEYS[3], 0, now - interval)
  local released = 0
  for _, v in ipairs(expired) do
    local _, permits = struct.unpack('Bc0I', v)
    released = released + permits
  end
  if released > 0 then
    redis.call('zremrangebyscore', KEYS[3], 0, now - interval)
    if current + released > rate then
      current = rate - usedInLog()
      rewrite = true
    else
      current = current + released
      delta = released
    end
  end
end

-- The oldest entry still in the window: the reset header's base, and the sign of a lost log, read once (a new entry
-- is older only when a prefetch's, logged ahead of now, was the oldest).
local first = redis.call('zrange', KEYS[3], 0, 0, 'withscores')
local oldest = nil
if first[2] ~= nil then oldest = tonumber(first[2]) end
-- The log was lost (eviction) but the counter was not: nothing is consumed in the window any more. Without
-- this, a counter at 0 that every request keeps alive would deny forever.
if oldest == nil and current < rate then
  current = rate
  rewrite = true
end

-- Admitted while the permits last: each takes its own entry in the log (one ZADD for all of them), a prefetch one
-- entry for all.
local admitted = 0
local entries = {}
if upTo > 0 then
  if want > 0 and current >= want then admitted = math.min(count, math.floor(current / want)) end
  if admitted > 0 then
    entries[1] = now + offset
    entries[2] = struct.pack('Bc0I', string.len(ARGV[3]), ARGV[3], admitted * want)
    current = current - admitted * want
    delta = delta - admitted * want
    if oldest == nil or now + offset < oldest then oldest = now + offset end
  end
else
  while admitted < count and current >= want do
    admitted = admitted + 1
    local id = count == 1 and ARGV[3] or ARGV[3] .. ':' .. admitted
    entries[#entries + 1] = now + offset
    entries[#entries + 1] = struct.pack('Bc0I', string.len(id), id, want)
    current = current - want
    delta = delta - want
    if oldest == nil or now + offset < oldest then oldest = now + offset end
  end
end
-- ZADD's arguments go through Lua's stack: in slices well under its limit.
local ZADD_SLICE = 1000
for from = 1, #entries, ZADD_SLICE do
  redis.call('zadd', KEYS[3], unpack(entries, from, math.min(from + ZADD_SLICE - 1, #entries)))
end
-- The rest are rejected alike: walk the log from the oldest entry until enough permits would be free again.
local wait = 0
if admitted < count then
  local needed = want - current
  local log = redis.call('zrange', KEYS[3], 0, -1, 'withscores')
  for i = 1, #log, 2 do
    local _, permits = struct.unpack('Bc0I', log[i])
    needed = needed - permits
    if needed <= 0 then
      wait = interval - (now - tonumber(log[i + 1]))
      break
    end
  end
  if needed > 0 then wait = interval end
end
if rewrite then
  redis.call('set', KEYS[2], current)
elseif delta ~= 0 then
  redis.call('incrby', KEYS[2], delta)
end

local reset = 0
if oldest ~= nil then reset = interval - (now - oldest) end
if reset < 0 then reset = 0 end
if wait < 0 then wait = 0 end

-- State lives between keepAlive and keepAlive + slack after its last use: the TTLs are renewed when
-- they have run down to keepAlive, not on every call (three writes a call cost more than the decision).
-- The log is the key that can be recreated without a TTL (ZADD after its last entry left): watch its TTL.
-- Entries logged ahead of now keep the state alive until they have left the window too.
local slack = math.floor(keepAlive / 8) + 1
local live = keepAlive
if admitted > 0 then live = keepAlive + offset end
local ttl = redis.call('pttl', KEYS[3])
if fresh or rewrite or ttl <= live then
  redis.call('pexpire', KEYS[1], live + slack)
  redis.call('pexpire', KEYS[2], live + slack)
  redis.call('pexpire', KEYS[3], live + slack)
end
-- A counter below 0 (a lowered limit) answers "none left". The i-th admitted request left what the ones after it
-- had not taken yet.
if upTo > 0 then
  local left = current < 0 and 0 or current
  return {admitted, left, reset, admitted < count and wait or 0}
end
local answers = {}
for i = 1, count do
  if i <= admitted then
    local left = current + (admitted - i) * want
    answers[#answers + 1] = 1
    answers[#answers + 1] = left < 0 and 0 or left
    answers[#answers + 1] = reset
    answers[#answers + 1] = 0
  else
    answers[#answers + 1] = 0
    answers[#answers + 1] = current < 0 and 0 or current
    answers[#answers + 1] = reset
    answers[#answers + 1] = wait
  end
end
return answers
