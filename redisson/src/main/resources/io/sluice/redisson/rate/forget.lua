-- Forgets a rate key (Sluice.reset): its algorithm's state and its block, all in one cluster slot.
-- KEYS: the keys to delete. Returns how many there were.
return redis.call('DEL', unpack(KEYS))
