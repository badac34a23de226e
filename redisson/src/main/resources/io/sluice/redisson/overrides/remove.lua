-- Removes one override and changes the version when there was one.
-- KEYS[1] the overrides, KEYS[2] their version. ARGV[1] field (rule:hashedKey). Answers 1 if removed, else 0.
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
new_version()
return 1
