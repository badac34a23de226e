-- Appended on load to a decision script, which RedissonBackend wraps in `local function decide(KEYS, ARGV)`
-- ... `end`: several decisions for one key in one call, in arrival order, each exactly as if its own script
-- call had run at that point, so each sees what the ones before it took.
-- ARGV[1] how many arguments one decision has; ARGV[2] which of them is unique to its request (a log entry's id)
-- when the script takes its time from the caller, else 0; then each decision's arguments, one group after another.
-- Returns every decision's answer, one after another, flattened into one list.
local size = tonumber(ARGV[1])
local unique = tonumber(ARGV[2])
local out = {}
-- A rejection changes nothing a decision reads, so until something is admitted, a request asking the same as a
-- rejected one (but for its id) at the same time gets the same answer: no second walk of a long log.
local rejected = nil
local function asked(args)
  local parts = {}
  for i = 1, size do if i ~= unique then parts[#parts + 1] = args[i] end end
  return table.concat(parts, ':')
end
for first = 3, #ARGV, size do
  local args = {}
  for i = 1, size do args[i] = ARGV[first + i - 1] end
  -- Only after a rejection is a request's question spelled out: an admitted run costs nothing extra.
  local answer = rejected and rejected[asked(args)]
  if not answer then
    answer = decide(KEYS, args)
    if answer[1] == 1 then
      rejected = nil
    elseif unique > 0 then
      rejected = rejected or {}
      rejected[asked(args)] = answer
    end
  end
  for i = 1, #answer do out[#out + 1] = answer[i] end
end
return out
