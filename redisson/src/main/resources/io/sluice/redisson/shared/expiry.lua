-- Shared opening of a decision call sent with an expiry (prepended when RedissonBackend loads the scripts; scripts
-- cannot include each other). The call's last argument, taken off before the script reads its own: Redis TIME (ms)
-- after which its caller has given up on it (its client's timeout), or '' for none. A call Redis runs later (frozen,
-- or its connection's commands read only once it went on) takes nothing and answers an error: no answer would reach
-- anyone to undo what it took, and a window's counter has no id to undo it by (issue 21).
local expiresAt = table.remove(ARGV)
if expiresAt ~= '' then
  -- Redis before 5 replicates scripts verbatim, which a script reading TIME must not be; a no-op since.
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(expiresAt) then
    return redis.error_reply('SLUICE_LATE decision call run after its caller gave up: nothing taken')
  end
end
