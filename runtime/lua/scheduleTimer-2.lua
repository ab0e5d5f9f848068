--[[
  Schedules (or replaces: same timer id) a timer in one partition. Due time is computed from
  Redis TIME so hosts with skewed clocks agree with promoteTimers-3.lua.

  Input:
    KEYS[1] timers     sorted set, member = timer id, score = due time (epoch ms)
    KEYS[2] timer data hash, timer id => payload
    ARGV[1] timer id
    ARGV[2] delay ms   already multiplied by TIME_SCALE when scaled
    ARGV[3] payload    "<key byte length>:<key><message JSON>"

  Output: due time (epoch ms, Redis clock).
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = now + math.max(0, math.floor(tonumber(ARGV[2])))
redis.call("ZADD", KEYS[1], due, ARGV[1])
redis.call("HSET", KEYS[2], ARGV[1], ARGV[3])
return due
