-- Shared opening of the scripts on Redis time (prepended when RedissonBackend loads them; scripts cannot include
-- each other). Sets now (microseconds) from Redis TIME, or from ARGV[1] (ms) when a test passes its own time;
-- and SLACK_MS, the margin added to every key's TTL.
local SLACK_MS = 1000
local now
if ARGV[1] == '' then
  -- Redis before 5 replicates scripts verbatim, which a script reading TIME must not be; a no-op since.
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  -- A test's time runs ahead of the real time that expires keys: keep them a minute longer.
  now = tonumber(ARGV[1]) * 1000
  SLACK_MS = 60000
end
