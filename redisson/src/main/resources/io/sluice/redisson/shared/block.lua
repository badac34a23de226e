-- A rule's block (`block`) around its algorithm's decision, in the same script call. BlockScript prepends the
-- constants RATE_KEYS, RATE_ARGS, UNIQUE (the algorithm's unique argument, 0 for none) and ANSWER (its answer's size),
-- then the algorithm's script wrapped as `local function rate(KEYS, ARGV)`, and appends this.
-- KEYS: the algorithm's keys, then the block key (its value: when the block ends, in ms).
-- ARGV: the algorithm's arguments, then now in ms ('' for Redis TIME), the block in ms (0: pass through, as refunds
-- do; -1: only read the block, as a peek does), and how many identical requests (batch.lua passes a run's length;
-- absent: 1).
-- Returns, for each request, the algorithm's answer followed by the block's time left in ms (0: not blocked). A
-- request of a blocked key is rejected without running the algorithm: nothing left, free again when the block ends.
-- A request the algorithm rejects starts the block.
local blockKey = KEYS[RATE_KEYS + 1]
local blockMs = tonumber(ARGV[RATE_ARGS + 2])
local runs = tonumber(ARGV[RATE_ARGS + 3]) or 1
local rateKeys = {}
for i = 1, RATE_KEYS do rateKeys[i] = KEYS[i] end
local rateArgs = {}
for i = 1, RATE_ARGS do rateArgs[i] = ARGV[i] end

local nowMs
local slackMs = 1000
if ARGV[RATE_ARGS + 1] == '' then
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  -- A test's time runs ahead of the real time that expires keys: keep them a minute longer.
  nowMs = tonumber(ARGV[RATE_ARGS + 1])
  slackMs = 60000
end
local function left()
  local ends = tonumber(redis.call('GET', blockKey) or '0') or 0
  if ends > nowMs then return ends - nowMs end
  return 0
end
local function blocked(ms)
  local answer = {0, 0, ms, ms}
  for i = 5, ANSWER do answer[i] = 0 end
  answer[ANSWER + 1] = ms
  return answer
end

local out = {}
for i = 1, runs do
  local l = 0
  if blockMs ~= 0 then l = left() end
  local answer
  if l > 0 then
    answer = blocked(l)
  else
    if UNIQUE > 0 and runs > 1 then rateArgs[UNIQUE] = ARGV[UNIQUE] .. ':' .. i end
    answer = rate(rateKeys, rateArgs)
    if blockMs > 0 and answer[1] == 0 then
      redis.call('SET', blockKey, string.format('%.0f', nowMs + blockMs), 'PX', blockMs + slackMs)
      answer = blocked(blockMs)
    else
      answer[ANSWER + 1] = 0
    end
  end
  for _, v in ipairs(answer) do out[#out + 1] = v end
end
return out
