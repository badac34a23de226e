-- Every override with its version, in one atomic step: version, then field, value, field, value...
-- KEYS[1] the overrides, KEYS[2] their version.
local out = { redis.call('GET', KEYS[2]) or '0' }
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all do out[#out + 1] = all[i] end
return out
