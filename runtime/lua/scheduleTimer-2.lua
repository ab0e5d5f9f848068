--[[
  Schedules (or replaces: same timer id) a timer in one partition. Due time is computed from
  Redis TIME so hosts with skewed clocks agree with promoteTimers-3.lua.

  Input:
    KEYS[1] timers     sorted set, member = timer id, score = due time (epoch ms)
    KEYS[2] timer data hash, timer id => payload
    ARGV[1] timer id
    ARGV[2] delay ms   already multiplied by TIME_SCALE when scaled
    ARGV[3] payload    "<key byte length>:<key><message JSON>"
    ARGV[4] channel    optional: the runtime's timer wake channel `<prefix>:timers-wake`
    ARGV[5] tag        optional: `<actor>:<p>`, published with the delay when this timer is now the
                       partition's earliest (the owner sleeps until its earliest timer is due)

  Output: due time (epoch ms, Redis clock).
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = now + math.max(0, math.floor(tonumber(ARGV[2])))
local head = redis.call("ZRANGE", KEYS[1], 0, 0, "WITHSCORES")
redis.call("ZADD", KEYS[1], due, ARGV[1])
redis.call("HSET", KEYS[2], ARGV[1], ARGV[3])
if ARGV[4] and ARGV[4] ~= "" and (head[2] == nil or due < tonumber(head[2])) then
  redis.call("PUBLISH", ARGV[4], ARGV[5] .. ":" .. (due - now))
end
return due
