-- Gives back a leaky bucket's slot that a decision took after Sluice stopped waiting for it (a late answer), when it
-- is still the last slot scheduled: the next free slot moves back by the request's slots, as if it had never come.
-- A slot with later ones scheduled after it stays taken: those requests were told when to go, and moving the next
-- free slot back would send a new one at the same instant (docs/algorithms.md, Permits given back).
-- KEYS[1] state "<next free slot, us>:<effective limit>" (leaky-bucket.lua). ARGV[1] the end of the slot taken (us,
-- the decision's answer), ARGV[2] period (ms), ARGV[3] effective limit, ARGV[4] cost.
-- Returns 1 when the slot was given back, 0 when it stays taken (a later slot, a changed pace, the state gone).
local state = redis.call('GET', KEYS[1])
if not state then return 0 end
local t, l = string.match(state, '^(%d+):(%d+)$')
if not t or t ~= ARGV[1] or l ~= ARGV[3] then return 0 end
local interval = tonumber(ARGV[2]) * 1000 / tonumber(ARGV[3])
-- The decision stored ceil(slot + cost * interval) with a whole slot: the floor gives that slot back exactly.
local slot = math.floor(tonumber(t) - tonumber(ARGV[4]) * interval)
redis.call('SET', KEYS[1], string.format('%.0f:%s', slot, l), 'KEEPTTL')
return 1
