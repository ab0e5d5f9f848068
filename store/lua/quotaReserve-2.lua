--[[
  Reserves one notification of a tenant's period quota: the check and the count are one step, so
  concurrent accepts can never take more than the limit between them.

  Input:
    KEYS[1] used      string: notifications of the period committed or in flight
    KEYS[2] inflight  sorted set: reservation id (the notification id) -> reserved at (epoch ms)
    ARGV[1] limit     the plan's notifications_per_month
    ARGV[2] id        the reservation id
    ARGV[3] nowMs     score of the reservation (the reconciler settles reservations older than a bound)
    ARGV[4] ttlMs     lifetime of the in-flight set (the counter's own is set when it is seeded)

  Output: { status, used }
    status 1   reserved; used = the count including this one
    status 0   refused (the limit is reached); used = the count now
    status -1  no counter (first use of the period, or Redis lost it): seed it from PostgreSQL, then call again
]]
local used = redis.call("GET", KEYS[1])
if not used then return { -1, 0 } end
used = tonumber(used)
if used + 1 > tonumber(ARGV[1]) then return { 0, used } end
used = redis.call("INCR", KEYS[1])
redis.call("ZADD", KEYS[2], ARGV[3], ARGV[2])
redis.call("PEXPIRE", KEYS[2], ARGV[4])
return { 1, used }
