--[[
  Settles reservations of quotaReserve-2.lua once their accepts are over: a notification created
  keeps its count, one not created (an idempotent repeat, a failed insert) gives it back. Only an
  open reservation is settled, so an accept and the billing cron cannot both give one back.

  Input:
    KEYS[1] used      string: the period's count
    KEYS[2] inflight  sorted set of open reservations
    ARGV[1..]         pairs: reservation id, then 1 (created: keep the count) or 0 (give it back)

  Output: how many of the reservations were open (settled now); the others were settled before or are unknown
]]
local settled = 0
local given = 0
for i = 1, #ARGV, 2 do
  if redis.call("ZREM", KEYS[2], ARGV[i]) == 1 then
    settled = settled + 1
    if ARGV[i + 1] == "0" then given = given + 1 end
  end
end
if given > 0 and redis.call("EXISTS", KEYS[1]) == 1 then redis.call("DECRBY", KEYS[1], given) end
return settled
