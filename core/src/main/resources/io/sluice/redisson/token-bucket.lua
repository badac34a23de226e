-- Sluice token bucket as GCRA: one "theoretical arrival time" per key, in one round trip.
-- KEYS[1] state "<tat, us>:<effective limit it was computed with>", then one "|<id>,<tokens>,<until, us>" per stock
-- of tokens lent to a server (a prefetch) and not yet handed back: while out, lent tokens are neither in the bucket
-- nor room for its refill (it refills up to burst less them), so the bucket and every server's stock together never
-- hold more than a bucket without prefetch. A stock lapses at its "until" (its hold and a grace: a server that
-- stopped hands nothing back) and counts as used; one of 0 tokens is a hand-back that came before its prefetch.
-- ARGV[1] now in ms, or '' for Redis TIME (production always passes ''); ARGV[2] period (ms);
-- ARGV[3] limit, ARGV[4] effective limit (soft/elastic), ARGV[5] burst, ARGV[6] effective burst, ARGV[7] cost,
-- ARGV[8] '1' to refund cost (an elastic request its capacity rule could not pay for).
-- Returns {allowed, remaining, reset ms, retry-after ms (-1: never fits), delay ms, over the nominal limit}.
-- io.sluice.memory.TokenBucketModel is the same computation in Java, operation for operation.
-- (redis-time.lua, prepended on load, has set now and SLACK_MS.)
local period = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local eff = tonumber(ARGV[4])
local burst = tonumber(ARGV[5])
local effBurst = tonumber(ARGV[6])
local cost = tonumber(ARGV[7])
local interval = period / eff
local tau = interval * effBurst

local tat = now
local rescaled = false
local lent = {}
local lentTokens = 0
local state = redis.call('GET', KEYS[1])
if state then
  local t, l, stocks = string.match(state, '^(%d+):(%d+)(.*)$')
  if t then
    for id, tokens, untilAt in string.gmatch(stocks, '|([^,|]+),(%d+),(%d+)') do
      if tonumber(untilAt) > now then
        lent[#lent + 1] = {id, tonumber(tokens), tonumber(untilAt)}
        lentTokens = lentTokens + tonumber(tokens)
      end
    end
    tat = tonumber(t)
    local stored = tonumber(l)
    -- A changed limit keeps the permits used, not the time owed; stored at once (even by a rejection, which
    -- takes nothing) so that later calls see one state, not a rescaling that depends on when they look.
    if stored ~= eff and tat > now then
      tat = math.ceil(now + (tat - now) * stored / eff)
      rescaled = true
    end
  end
end

local function store(newTat)
  local parts = {string.format('%.0f:%.0f', newTat, eff)}
  local last = newTat
  for _, e in ipairs(lent) do
    parts[#parts + 1] = string.format('|%s,%.0f,%.0f', e[1], e[2], e[3])
    last = math.max(last, e[3])
  end
  redis.call('SET', KEYS[1], table.concat(parts),
    'PX', math.max(0, math.ceil((last - now) / 1000)) + SLACK_MS)
end
-- The stock lent under id, by its place in lent (nil when none).
local function stockOf(id)
  for i, e in ipairs(lent) do
    if e[1] == id then return i end
  end
  return nil
end

-- ARGV[9] a prefetch: up to this many requests (0: not one), decided as a run that stops at its first rejection
-- and answered once, with how many were admitted in place of "allowed".
-- ARGV[10] the prefetch's id (Sluice's, so that it can hand back a stock whose answer it never got), '' for none;
-- ARGV[11] how long (ms) its stock is lent: the hold and a grace.
-- ARGV[12] how many such requests at once (batch.lua passes a run of identical ones; absent: 1): each decided as if
-- alone, one after another, at this instant, on the state the ones before it left; the state is written once.
local upTo = tonumber(ARGV[9]) or 0
local stockId = ARGV[10] or ''
local lendMicros = (tonumber(ARGV[11]) or 0) * 1000
local count = tonumber(ARGV[12]) or 1
if upTo > 0 then count = upTo end
local answers = {}

if ARGV[8] == '1' and stockId ~= '' then
  -- A hand-back of stock stockId: up to cost of its tokens go back into the bucket (the rest were used) and its
  -- room with them; once only. None lent under it (not yet taken, or lapsed): a tombstone for ARGV[11] ms, so that
  -- a prefetch under it that Redis runs after all takes nothing.
  local i = stockOf(stockId)
  if i and lent[i][2] == 0 then
    -- A tombstone already (a hand-back sent twice): it stays until its own end.
  elseif i then
    local base = math.max(tat, now + lentTokens * interval)
    local e = table.remove(lent, i)
    lentTokens = lentTokens - e[2]
    tat = math.max(now, math.ceil(base - math.min(cost, e[2]) * interval))
  else
    lent[#lent + 1] = {stockId, 0, now + lendMicros}
  end
  store(tat)
  return {1, 0, 0, 0, 0, 0}
end

if ARGV[8] == '1' then
  if state then
    for _ = 1, count do tat = math.max(now, math.ceil(math.max(tat, now) - cost * interval)) end
    store(tat)
  end
  for _ = 1, count do
    for _, v in ipairs({1, 0, 0, 0, 0, 0}) do answers[#answers + 1] = v end
  end
  return answers
end

local dirty = rescaled
-- One decision on the state so far: whether it is admitted (and the state moves), its TAT after, its retry-after.
local function decide()
  -- Tokens lent out are not in the bucket however long it refills.
  local base = math.max(tat, now + lentTokens * interval)
  if cost > effBurst then return 0, base, -1 end
  local newTat = math.ceil(base + cost * interval)
  local allowAt = newTat - tau
  if now >= allowAt then
    tat = newTat
    dirty = true
    return 1, newTat, 0
  end
  return 0, base, math.ceil((allowAt - now) / 1000)
end
-- What a decision that left TAT tatF answers.
local function answer(allowed, tatF, retry)
  local remEff = effBurst
  if tatF > now then
    remEff = math.floor((now - (tatF - tau)) / interval)
    if remEff < 0 then remEff = 0 end
  end
  local extra = effBurst - burst
  local remaining = remEff - extra
  if remaining < 0 then remaining = 0 end
  local over = 0
  if allowed == 1 and remEff < extra then over = 1 end
  local reset = 0
  if tatF > now then reset = math.ceil((tatF - tau + (remEff + 1) * interval - now) / 1000) end
  return remaining, reset, over
end

if upTo > 0 then
  -- A prefetch: decisions until the first rejection (the rest would be rejected alike), answered once, as its last;
  -- what it took is lent under its id. One whose hand-back came first takes nothing.
  local admitted = 0
  local allowed, tatF, retry
  local gone = stockId ~= '' and stockOf(stockId)
  if gone then
    table.remove(lent, gone)
    dirty = true
    allowed, tatF, retry = 0, math.max(tat, now + lentTokens * interval), 0
  else
    repeat
      allowed, tatF, retry = decide()
      admitted = admitted + allowed
    until allowed == 0 or admitted == count
    if admitted > 0 and stockId ~= '' then
      lent[#lent + 1] = {stockId, admitted, now + lendMicros}
      lentTokens = lentTokens + admitted
    end
  end
  local remaining, reset = answer(allowed, tatF, retry)
  answers = {admitted, remaining, reset, retry, 0, 0}
else
  for _ = 1, count do
    local allowed, tatF, retry = decide()
    local remaining, reset, over = answer(allowed, tatF, retry)
    answers[#answers + 1] = allowed
    answers[#answers + 1] = remaining
    answers[#answers + 1] = reset
    answers[#answers + 1] = retry
    answers[#answers + 1] = 0
    answers[#answers + 1] = over
  end
end
-- A rescaled state is stored even by a rejection (see above); an admission always.
if dirty then store(tat) end
return answers
