-- Permits of a semaphore free now, read only: the limit minus the leases still live. The count key is not read:
-- after a changed limit (a reload) it is only corrected by the next acquire or release.
-- KEYS[1] {name}:timeout (permit id -> lease expiry). ARGV[1] limit, ARGV[2] now (ms).
-- Counted from ZRANGEBYSCORE (at most the limit's entries) so the documented ACL commands suffice.
local free = tonumber(ARGV[1]) - #redis.call('zrangebyscore', KEYS[1], '(' .. ARGV[2], '+inf')
if free < 0 then free = 0 end
return free
