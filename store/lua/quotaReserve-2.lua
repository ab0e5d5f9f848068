--[[
  Reserves notifications of a tenant's period quota for a batch of accepts: the check and the count
  are one step, so concurrent accepts in any number of processes never take more than the limit.
  The first `granted` ids of the batch are reserved, the rest refused (ids are in arrival order).

  Input:
    KEYS[1] used      string: notifications of the period committed or in flight
    KEYS[2] inflight  sorted set: reservation id (the notification id) -> reserved at (epoch ms)
    ARGV[1] limit     the plan's notifications_per_month
    ARGV[2] nowMs     score of the reservations (the billing cron settles those older than a bound)
    ARGV[3] ttlMs     lifetime of the in-flight set (the counter's own is set when it is seeded)
    ARGV[4..] ids     the reservation ids, one per accept

  Output: { granted, used }
    granted  how many of the ids (from the first) are reserved; -1: no counter (first use of the
             period, or Redis lost it): seed it from PostgreSQL, then call again
    used     the count after this call
]]
local used = redis.call("GET", KEYS[1])
if not used then return { -1, 0 } end
used = tonumber(used)
local wanted = #ARGV - 3
local room = tonumber(ARGV[1]) - used
local granted = wanted
if room < granted then granted = room end
if granted <= 0 then return { 0, used } end
used = redis.call("INCRBY", KEYS[1], granted)
local members = {}
for i = 1, granted do
  members[#members + 1] = ARGV[2]
  members[#members + 1] = ARGV[3 + i]
end
redis.call("ZADD", KEYS[2], unpack(members))
redis.call("PEXPIRE", KEYS[2], ARGV[3])
return { granted, used }
