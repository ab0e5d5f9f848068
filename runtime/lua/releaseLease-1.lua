--[[
  Releases a partition lease only if this host still holds it (never another host's lease).

  Input:
    KEYS[1] lease key `<prefix>:lease:{<actor>:<p>}`
    ARGV[1] host id

  Output: 1 when released, 0 when this host did not hold it.
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("DEL", KEYS[1])
  return 1
end
return 0
