-- Sluice token bucket as GCRA: one "theoretical arrival time" per key, in one round trip.
-- KEYS[1] state "<tat, us, to 9 decimals>:<limit it was computed with>", under an overage then ":<overage tat, us>:<its rate>", then
-- one "|<id>,<tokens>,<until, us>" per stock of tokens lent to a server (a prefetch) and not yet handed back: while
-- out, lent tokens are neither in the bucket nor room for its refill (it refills up to burst less them), so the
-- bucket and every server's stock together never hold more than a bucket without prefetch. A stock lapses at its
-- "until" (its hold and a grace: a server that stopped hands nothing back) and counts as used; one of 0 tokens is a
-- hand-back that came before its prefetch. A stock the server used up is forgotten by its next prefetch of the key
-- (ARGV[12]), as a hand-back of nothing would.
-- ARGV[1] now in ms, or '' for Redis TIME (production always passes ''); ARGV[2] period (ms);
-- ARGV[3] limit, ARGV[4] effective limit (soft/elastic), ARGV[5] burst, ARGV[6] effective burst, ARGV[7] cost,
-- ARGV[8] '1' to refund cost: to the overage's bucket under an overage (an elastic request its capacity rule could
-- not pay for, any request the overage paid for), else to the bucket (a request the bucket paid for comes at its
-- nominal limit, ARGV[4] = ARGV[3]: the overage's state stays as stored), '2'
-- to charge it whatever the bucket holds (a request settled past its estimate: the TAT may pass the burst, a debt
-- the refill repays before the key is admitted again).
-- Returns {allowed, remaining, reset ms, retry-after ms (-1: never fits), delay ms, over the nominal limit}.
-- The bucket holds burst tokens and gains limit per period, whatever the overage. Under soft or elastic throttling
-- a request the bucket cannot pay for may be paid by the overage's own bucket: effective burst - burst tokens,
-- refilled at effective limit - limit per period; such a request is over the nominal limit (an elastic rule's
-- capacity rule must pay for it, or it is refunded to the overage's bucket). So what is within the limit refills at
-- the nominal rate, and all together never exceed the effective limit and burst.
-- io.sluice.memory.TokenBucketModel is the same computation in Java, operation for operation.
-- (redis-time.lua, prepended on load, has set now and SLACK_MS.)
local period = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local eff = tonumber(ARGV[4])
local burst = tonumber(ARGV[5])
local effBurst = tonumber(ARGV[6])
local cost = tonumber(ARGV[7])
local interval = period / limit
local tau = interval * burst
local xLimit = eff - limit
local xBurst = effBurst - burst
local xInterval = 0
local xTau = 0
if xLimit > 0 then
  xInterval = period / xLimit
  xTau = xInterval * xBurst
end

-- The TATs are kept relative to now, to a fraction of a microsecond: period / limit is rarely a whole number of
-- microseconds, and a TAT rounded to one at each decision would lose the bucket's last token of a burst (3/10s
-- admitting 2 at once). Relative, the doubles stay small and exact enough; EPSILON absorbs their last bits.
local EPSILON = 0.001
local tat = 0
local xTat = 0
-- A stored time ("<whole us>[.<9 decimals>]") relative to now.
local function relative(stored)
  local whole, fraction = string.match(stored, '^(%d+)%.?(%d*)$')
  local r = tonumber(whole) - now
  if fraction ~= '' then r = r + tonumber('0.' .. fraction) end
  return r
end
-- A time relative to now as stored: whole microseconds and 9 decimals, rounded up (never earlier than it is).
local function absolute(r)
  local whole = math.floor(r)
  local fraction = math.ceil((r - whole) * 1e9)
  if fraction >= 1e9 then
    whole = whole + 1
    fraction = 0
  end
  return string.format('%.0f.%09d', now + whole, fraction)
end
local rescaled = false
-- The overage's stored part, as written, when this call has no overage of its own (a refund at the nominal limit: a
-- request the bucket itself paid for): kept as it is, so that its debt stays.
local keptOverage = nil
local keptOverageUntil = 0
local lent = {}
local lentTokens = 0
-- A changed limit keeps the permits used, not the time owed; stored at once (even by a rejection, which takes
-- nothing) so that later calls see one state, not a rescaling that depends on when they look.
local function rescale(t, stored, rate)
  if stored ~= rate and t > 0 then
    rescaled = true
    return t * stored / rate
  end
  return t
end
local state = redis.call('GET', KEYS[1])
if state then
  local t, l, rest = string.match(state, '^([%d%.]+):(%d+)(.*)$')
  if t then
    tat = rescale(relative(t), tonumber(l), limit)
    local xt, xl = string.match(rest, '^:([%d%.]+):(%d+)')
    if xt and xLimit > 0 then xTat = rescale(relative(xt), tonumber(xl), xLimit) end
    if xt and xLimit == 0 then
      keptOverage = ':' .. xt .. ':' .. xl
      keptOverageUntil = relative(xt)
    end
    for id, tokens, untilAt in string.gmatch(rest, '|([^,|]+),(%d+),(%d+)') do
      if tonumber(untilAt) > now then
        lent[#lent + 1] = {id, tonumber(tokens), tonumber(untilAt)}
        lentTokens = lentTokens + tonumber(tokens)
      end
    end
  end
end

local function store()
  local parts = {absolute(tat) .. string.format(':%.0f', limit)}
  if xLimit > 0 then parts[#parts + 1] = ':' .. absolute(xTat) .. string.format(':%.0f', xLimit) end
  if keptOverage then parts[#parts + 1] = keptOverage end
  local last = now + math.max(tat, xTat, keptOverageUntil)
  for _, e in ipairs(lent) do
    parts[#parts + 1] = string.format('|%s,%.0f,%.0f', e[1], e[2], e[3])
    last = math.max(last, e[3])
  end
  redis.call('SET', KEYS[1], table.concat(parts), 'PX', math.max(0, math.ceil((last - now) / 1000)) + SLACK_MS)
end
-- The stock lent under id, by its place in lent (nil when none).
local function stockOf(id)
  for i, e in ipairs(lent) do
    if e[1] == id then return i end
  end
  return nil
end
-- Where the bucket's next token is owed from: its TAT, or later while tokens are lent out (not in the bucket).
local function base()
  return math.max(tat, lentTokens * interval)
end

-- ARGV[9] a prefetch: up to this many requests (0: not one), decided as a run that stops at its first rejection
-- and answered once, with how many were admitted in place of "allowed".
-- ARGV[10] the prefetch's id (Sluice's, so that it can hand back a stock whose answer it never got), '' for none;
-- ARGV[11] how long (ms) its stock is lent: the hold and a grace.
-- ARGV[12] with a prefetch: the ids of stocks of the key the server used up, separated by ',' ('' none), forgotten
-- before it takes any: each loan ends as its hand-back of nothing would end it (the room its tokens kept out of the
-- bucket stays out until the bucket refills), and an id not lent (any more) is left alone, with no tombstone.
-- ARGV[13] how many such requests at once (batch.lua passes a run of identical ones; absent: 1): each decided as if
-- alone, one after another, at this instant, on the state the ones before it left; the state is written once.
local upTo = tonumber(ARGV[9]) or 0
local stockId = ARGV[10] or ''
local lendMicros = (tonumber(ARGV[11]) or 0) * 1000
local usedUp = ARGV[12] or ''
local count = tonumber(ARGV[13]) or 1
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
    local from = base()
    local e = table.remove(lent, i)
    lentTokens = lentTokens - e[2]
    tat = math.max(0, from - math.min(cost, e[2]) * interval)
  else
    lent[#lent + 1] = {stockId, 0, now + lendMicros}
  end
  store()
  return {1, 0, 0, 0, 0, 0}
end

if ARGV[8] == '1' then
  if state then
    for _ = 1, count do
      if xLimit > 0 then
        xTat = math.max(0, math.max(xTat, 0) - cost * xInterval)
      else
        tat = math.max(0, math.max(tat, 0) - cost * interval)
      end
    end
    store()
  end
  for _ = 1, count do
    for _, v in ipairs({1, 0, 0, 0, 0, 0}) do answers[#answers + 1] = v end
  end
  return answers
end

if ARGV[8] == '2' then
  for _ = 1, count do
    tat = base() + cost * interval
  end
  store()
  for _ = 1, count do
    for _, v in ipairs({1, 0, 0, 0, 0, 0}) do answers[#answers + 1] = v end
  end
  return answers
end

local dirty = rescaled
-- The loans of ARGV[12] end, nothing of them handed back (see there).
local function forgetUsedUp()
  for id in string.gmatch(usedUp, '[^,]+') do
    local i = stockOf(id)
    if i and lent[i][2] > 0 then
      local from = base()
      local e = table.remove(lent, i)
      lentTokens = lentTokens - e[2]
      tat = math.max(0, from)
      dirty = true
    end
  end
end
-- One decision on the state so far: whether it is admitted (and the state moves), the bucket's TAT after, its
-- retry-after, and whether the overage's bucket paid for it.
local function decide()
  local from = base()
  local fitsOverage = xLimit > 0 and cost <= xBurst
  if cost > burst and not fitsOverage then return 0, from, -1, 0 end
  local retry = nil
  if cost <= burst then
    local newTat = from + cost * interval
    local allowAt = newTat - tau
    if allowAt <= EPSILON then
      tat = newTat
      dirty = true
      return 1, newTat, 0, 0
    end
    retry = math.ceil((allowAt - EPSILON) / 1000)
  end
  if fitsOverage then
    local xNew = math.max(xTat, 0) + cost * xInterval
    local xAllowAt = xNew - xTau
    if xAllowAt <= EPSILON then
      xTat = xNew
      dirty = true
      return 1, from, 0, 1
    end
    local xRetry = math.ceil((xAllowAt - EPSILON) / 1000)
    if retry == nil or xRetry < retry then retry = xRetry end
  end
  return 0, from, retry, 0
end
-- What a decision that left the bucket's TAT at tatF answers: the bucket's tokens and when its next one arrives.
local function answer(tatF)
  local remaining = burst
  if tatF > 0 then
    remaining = math.floor((tau - tatF + EPSILON) / interval)
    if remaining < 0 then remaining = 0 end
  end
  local reset = 0
  if tatF > 0 then reset = math.ceil((tatF - tau + (remaining + 1) * interval - EPSILON) / 1000) end
  return remaining, reset
end

if upTo > 0 then
  -- A prefetch: decisions until the first rejection (the rest would be rejected alike), answered once, as its last;
  -- what it took is lent under its id. One whose hand-back came first takes nothing.
  local admitted = 0
  local allowed, tatF, retry
  forgetUsedUp()
  local gone = stockId ~= '' and stockOf(stockId)
  if gone then
    table.remove(lent, gone)
    dirty = true
    allowed, tatF, retry = 0, base(), 0
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
  local remaining, reset = answer(tatF)
  answers = {admitted, remaining, reset, retry, 0, 0}
else
  for _ = 1, count do
    local allowed, tatF, retry, over = decide()
    local remaining, reset = answer(tatF)
    answers[#answers + 1] = allowed
    answers[#answers + 1] = remaining
    answers[#answers + 1] = reset
    answers[#answers + 1] = retry
    answers[#answers + 1] = 0
    answers[#answers + 1] = over
  end
end
-- A rescaled state is stored even by a rejection (see above); an admission always.
if dirty then store() end
return answers
