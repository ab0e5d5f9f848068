--[[
  Records a host's heartbeat in an actor's host registry, forgets hosts silent for longer
  than the ttl, and lists the live ones (their number is the divisor of the lease balance
  target; the caller checks which of them are processes of its machine that died).

  Input:
    KEYS[1] hosts      sorted set `<prefix>:hosts:<actor>`, member = host id, score = last beat (ms)
    ARGV[1] host id
    ARGV[2] ttl ms     a host silent this long is dead (the lease time)
    ARGV[3] leaving    "1" removes the host (graceful stop) instead of recording a beat

  Output: the ids of the live hosts after this call (this host's own included unless leaving).
]]
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now - ttl)
if ARGV[3] == "1" then
  redis.call("ZREM", KEYS[1], ARGV[1])
else
  redis.call("ZADD", KEYS[1], now, ARGV[1])
  -- The registry disappears by itself once every host of the actor is gone.
  redis.call("PEXPIRE", KEYS[1], ttl * 10)
end
return redis.call("ZRANGE", KEYS[1], 0, -1)
