--[[
  Defers a message that was read but not run (its group held its share while readers waited for
  capacity): acks the entry and schedules the same message as a timer, atomically, so it is
  either pending in the stream or scheduled, never lost and never both.

  Input:
    KEYS[1] stream     the partition stream `<prefix>:{<actor>:<p>}`
    KEYS[2] timers     sorted set of the partition's timers
    KEYS[3] timer data hash, timer id => payload
    KEYS[4] attempts   hash, entry id => failures (cleared for the acked entry)
    ARGV[1] group      the consumer group
    ARGV[2] entry id
    ARGV[3] timer id   `defer:<n>:<first entry id>` (n counts the deferrals)
    ARGV[4] delay ms
    ARGV[5] payload    "<key byte length>:<key><message JSON>"

  Output: 1 when the entry was still pending here and is now a timer, 0 when it was already acked.
]]
local acked = redis.call("XACK", KEYS[1], ARGV[1], ARGV[2])
if acked == 0 then
  return 0
end
redis.call("HDEL", KEYS[4], ARGV[2])
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call("ZADD", KEYS[2], now + math.max(0, math.floor(tonumber(ARGV[4]))), ARGV[3])
redis.call("HSET", KEYS[3], ARGV[3], ARGV[5])
return 1
