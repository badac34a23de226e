-- Appended on load to a decision script, which RedissonBackend wraps in `local function decide(KEYS, ARGV)`
-- ... `end`: many decisions in one call, for one key or for several (the keys of one cluster slot), each exactly
-- as if its own script call had run at that point, in order, so each sees what the ones before it took.
-- KEYS: each key's own keys, `width` of them, one key after another.
-- ARGV[1] how many arguments one decision has; ARGV[2] which of them is unique to its request (a log entry's id)
-- when the script takes its time from the caller, else 0; ARGV[3] width; ARGV[4] how many numbers one answer has;
-- ARGV[5] 1 when the script decides a run itself (it takes the run's length after its own arguments, answers
-- each, and makes the unique argument unique per decision), else 0; then runs, each: which key (1-based), how many
-- decisions, and their arguments, the same for every decision of the run (so a hot key's burst is sent once).
-- Returns every decision's answer, one after another, flattened into one list. A run that fails (a key of another
-- type, Redis out of memory) answers its error message in place of each first number, so it fails alone.
local size = tonumber(ARGV[1])
local unique = tonumber(ARGV[2])
local width = tonumber(ARGV[3])
local answerSize = tonumber(ARGV[4])
local bulk = ARGV[5] == '1'
local out = {}
-- A rejection changes nothing a decision reads, so until something is admitted, a request asking the same as a
-- rejected one (but for its id) of the same key at the same time gets the same answer: no second walk of a long log.
local rejected = nil
local function failed(e)
  out[#out + 1] = type(e) == 'table' and (e.err or 'error') or tostring(e)
  for _ = 2, answerSize do out[#out + 1] = 0 end
end
local function append(answer)
  for i = 1, #answer do out[#out + 1] = answer[i] end
end
-- A run's answers: from the script itself when it decides runs, else from one call of it per request.
local function run(keys, args, n)
  if bulk then
    args[size + 1] = n
    return decide(keys, args)
  end
  local answers = {}
  for _ = 1, n do
    for _, v in ipairs(decide(keys, args)) do answers[#answers + 1] = v end
  end
  return answers
end
-- What a request asks but for its unique argument, by key: requests asking the same get the same rejection.
local function ask(key, args)
  if unique == 0 then return nil end
  local parts = { key }
  for i = 1, size do if i ~= unique then parts[#parts + 1] = args[i] end end
  return table.concat(parts, ':')
end
local p = 6
while p <= #ARGV do
  local key = tonumber(ARGV[p])
  local n = tonumber(ARGV[p + 1])
  local keys = {}
  for i = 1, width do keys[i] = KEYS[(key - 1) * width + i] end
  local args = {}
  for i = 1, size do args[i] = ARGV[p + 1 + i] end
  p = p + 2 + size
  -- Named only when a rejection is remembered or to be (most calls admit all and need no name).
  local asked = rejected and ask(key, args)
  local memo = asked and rejected[asked]
  if memo then
    for _ = 1, n do append(memo) end
  else
    local ok, result = pcall(run, keys, args, n)
    if not ok then
      for _ = 1, n do failed(result) end
    else
      append(result)
      for i = 1, #result, answerSize do if result[i] == 1 then rejected = nil end end
      if unique > 0 and result[#result - answerSize + 1] ~= 1 then
        asked = asked or ask(key, args)
        local last = {}
        for i = 1, answerSize do last[i] = result[#result - answerSize + i] end
        rejected = rejected or {}
        rejected[asked] = last
      end
    end
  end
end
return out
