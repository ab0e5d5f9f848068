--[[
  Moves due timers of one partition into its stream, atomically: a timer is either still
  scheduled or in the stream, never both and never lost. The clock is Redis TIME.

  Input:
    KEYS[1] timers     sorted set, member = timer id, score = due time (epoch ms)
    KEYS[2] timer data hash, timer id => "<key byte length>:<key><message JSON>"
    KEYS[3] stream     the partition stream `<prefix>:{<actor>:<p>}`
    ARGV[1] max        most timers to move in this call (bounds the script's run time)

  Output: { moved, next, lateness 1, lateness 2, ... }: the number of timers taken off the set (a
  caller that gets `max` back calls again), then ms until the earliest timer left is due (-1: none
  left; the host sleeps until then), then per timer moved into the stream how many ms after its
  due time it moved (the runtime's observer reports it as timer lateness).
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now, "WITHSCORES", "LIMIT", 0, tonumber(ARGV[1]))
local out = { #due / 2, -1 }
for i = 1, #due, 2 do
  local id = due[i]
  local payload = redis.call("HGET", KEYS[2], id)
  -- A timer without payload was half-written by a crashed writer of an older version: drop it.
  if payload then
    local sep = string.find(payload, ":", 1, true)
    local keyLength = tonumber(string.sub(payload, 1, sep - 1))
    local key = string.sub(payload, sep + 1, sep + keyLength)
    local message = string.sub(payload, sep + keyLength + 1)
    redis.call("XADD", KEYS[3], "*", "k", key, "m", message, "t", id)
    out[#out + 1] = now - math.floor(tonumber(due[i + 1]))
  end
  redis.call("ZREM", KEYS[1], id)
  redis.call("HDEL", KEYS[2], id)
end
local head = redis.call("ZRANGE", KEYS[1], 0, 0, "WITHSCORES")
if head[2] then
  out[2] = math.max(0, math.floor(tonumber(head[2])) - now)
end
return out
