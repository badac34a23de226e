-- Puts one override, forgets those ended, and changes the version; refuses a new one beyond the most allowed.
-- KEYS[1] the overrides, KEYS[2] their version. ARGV[1] field (rule:hashedKey), ARGV[2] its end (ms),
-- ARGV[3] the limit, ARGV[4] the caller's now (ms), ARGV[5] the most overrides, ARGV[6] slack added to the TTL (ms).
-- Answers 1, or 0 when full.
local now = tonumber(ARGV[4])
local last = tonumber(ARGV[2])
local others = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local ends = tonumber(string.match(all[i + 1], '^(%d+) '))
  if ends == nil or ends <= now then
    redis.call('HDEL', KEYS[1], all[i])
  elseif all[i] ~= ARGV[1] then
    others = others + 1
    if ends > last then last = ends end
  end
end
if others >= tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
-- The overrides live until the last of them ends.
redis.call('PEXPIRE', KEYS[1], last - now + tonumber(ARGV[6]))
new_version()
return 1
