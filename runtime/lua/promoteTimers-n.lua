--[[
  Moves due timers of partitions into their streams, atomically: a timer is either still
  scheduled or in the stream, never both and never lost. The clock is Redis TIME. Any number of
  partitions per call (on a single Redis a host promotes its partitions in one call; on a cluster
  a partition's three keys share a slot, so one partition per call).

  Input, per partition i (three keys each):
    KEYS[3i-2] timers     sorted set, member = timer id, score = due time (epoch ms)
    KEYS[3i-1] timer data hash, timer id => "<key byte length>:<key><message JSON>"
    KEYS[3i]   stream     the partition stream `<prefix>:{<actor>:<p>}`
    ARGV[1]    max        most timers to move per partition in this call (bounds the script's run time)

  Output: per partition { moved, next, lateness 1, lateness 2, ... }: the number of timers taken off
  the set (a caller that gets `max` back calls again), then ms until the earliest timer left is due
  (-1: none left; the host sleeps until then), then per timer moved into the stream how many ms
  after its due time it moved (the runtime's observer reports it as timer lateness).
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[1])

local function promote(timers, data, stream)
  local due = redis.call("ZRANGEBYSCORE", timers, "-inf", now, "WITHSCORES", "LIMIT", 0, max)
  local out = { #due / 2, -1 }
  for i = 1, #due, 2 do
    local id = due[i]
    local payload = redis.call("HGET", data, id)
    -- A timer without payload was half-written by a crashed writer of an older version: drop it.
    if payload then
      local sep = string.find(payload, ":", 1, true)
      local keyLength = tonumber(string.sub(payload, 1, sep - 1))
      local key = string.sub(payload, sep + 1, sep + keyLength)
      local message = string.sub(payload, sep + keyLength + 1)
      redis.call("XADD", stream, "*", "k", key, "m", message, "t", id)
      out[#out + 1] = now - math.floor(tonumber(due[i + 1]))
    end
    redis.call("ZREM", timers, id)
    redis.call("HDEL", data, id)
  end
  local head = redis.call("ZRANGE", timers, 0, 0, "WITHSCORES")
  if head[2] then
    out[2] = math.max(0, math.floor(tonumber(head[2])) - now)
  end
  return out
end

local all = {}
for i = 1, #KEYS, 3 do
  all[#all + 1] = promote(KEYS[i], KEYS[i + 1], KEYS[i + 2])
end
return all
