-- A server announces itself: its id scored by Redis time, the servers not heard from for a while forgotten, and the
-- rest counted. The set expires when no server announces itself for that long.
-- KEYS[1] the servers (sorted set). ARGV[1] '' (Redis time, see redis-time.lua), ARGV[2] server id,
-- ARGV[3] how long (ms) a server that stopped announcing itself still counts.
local now_ms = math.floor(now / 1000)
local gone_after = tonumber(ARGV[3])
redis.call('zadd', KEYS[1], now_ms, ARGV[2])
redis.call('zremrangebyscore', KEYS[1], '-inf', '(' .. (now_ms - gone_after))
redis.call('pexpire', KEYS[1], gone_after)
return redis.call('zcard', KEYS[1])
