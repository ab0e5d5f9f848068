--[[
  Renews leases held by this host, any number in one call (on a single Redis a host renews all
  of its partitions at once; on a cluster each lease key has a slot of its own, so one per call).
  A lease that expired and that nobody took yet is taken back when its flag is "1" (no one can
  have claimed the partition's entries in between); a host that is releasing the partition
  passes "0" so it never re-creates it.

  Input:
    KEYS[i]     lease keys `<prefix>:lease:{<actor>:<p>}` (or a named lease)
    ARGV[1]     host id
    ARGV[2]     lease ms
    ARGV[2 + i] "1" to take KEYS[i] back when it expired and nobody took it

  Output: per key, 1 when this host holds the lease afterwards, 0 when another host does.
]]
local out = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call("GET", key)
  if holder == ARGV[1] then
    redis.call("PEXPIRE", key, ARGV[2])
    out[i] = 1
  elseif not holder and ARGV[2 + i] == "1" then
    redis.call("SET", key, ARGV[1], "PX", ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
