-- Extends the lease of a held permit and the life of the semaphore's keys.
-- KEYS[1] available count, KEYS[2] {name}:timeout. ARGV[1] permit id (hex), ARGV[2] new expiry (ms), ARGV[3] key TTL (ms).
local id = ARGV[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)
if redis.call('zscore', KEYS[2], id) == false then return 0 end
redis.call('zadd', KEYS[2], ARGV[2], id)
redis.call('pexpire', KEYS[2], ARGV[3])
if redis.call('exists', KEYS[1]) == 1 then redis.call('pexpire', KEYS[1], ARGV[3]) end
return 1
