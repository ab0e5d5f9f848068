--[[
  Settles a reservation of quotaReserve-2.lua once its accept is over: a notification created keeps
  its count, one not created (an idempotent repeat, a failed insert) gives it back. Only an open
  reservation is settled, so the accept and the reconciler cannot both give the same one back.

  Input:
    KEYS[1] used      string: the period's count
    KEYS[2] inflight  sorted set of open reservations
    ARGV[1] id        the reservation id
    ARGV[2] created   1 = keep the count, 0 = give it back

  Output: 1 when the reservation was open (settled now), 0 when it was settled before or is unknown
]]
if redis.call("ZREM", KEYS[2], ARGV[1]) == 0 then return 0 end
if ARGV[2] == "0" then redis.call("DECR", KEYS[1]) end
return 1
