-- Shared opening of the override scripts that write (prepended; scripts cannot include each other): a new version
-- of the overrides, above the last one and above Redis's time in microseconds, so that overrides stored again after
-- Redis lost them never repeat a version a server still has; it lives as long as the overrides do (the version key
-- is deleted with them: a server then reads version 0, and reads the empty overrides again).
-- KEYS[1] the overrides (field rule:hashedKey -> "untilMillis limit"), KEYS[2] their version.
local function new_version()
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  local v = math.max(last + 1, micros)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('SET', KEYS[2], string.format('%.0f', v), 'PX', ttl)
  else
    redis.call('DEL', KEYS[2])
  end
end
