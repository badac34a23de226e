-- Appended on load to a decision script, which RedissonBackend wraps in `local function decide(KEYS, ARGV)`
-- ... `end`: several decisions for one key in one call, in arrival order, each exactly as if its own script
-- call had run at that point, so each sees what the ones before it took.
-- ARGV[1] how many arguments one decision has; then each decision's arguments, one group after another.
-- Returns every decision's answer, one after another, flattened into one list.
local size = tonumber(ARGV[1])
local out = {}
for first = 2, #ARGV, size do
  local args = {}
  for i = 1, size do args[i] = ARGV[first + i - 1] end
  local answer = decide(KEYS, args)
  for i = 1, #answer do out[#out + 1] = answer[i] end
end
return out
