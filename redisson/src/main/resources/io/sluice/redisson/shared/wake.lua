-- Shared opening of the scripts that free permits (prepended when RedissonBackend loads them; scripts cannot
-- include each other). Wakes Redisson's waiting acquirers the way Redisson's own semaphore does: how is 'publish',
-- or 'spublish' where Redisson subscribed them to sharded channels (a Redis 7 Cluster), or 'both' when the client
-- could not say (SPUBLISH is unknown before Redis 7: pcall ignores that).
local function wake(channel, value, how)
  if how == 'spublish' then
    redis.call('spublish', channel, value)
  elseif how == 'both' then
    redis.call('publish', channel, value)
    pcall(redis.call, 'spublish', channel, value)
  else
    redis.call('publish', channel, value)
  end
end
