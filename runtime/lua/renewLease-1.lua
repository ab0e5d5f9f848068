--[[
  Renews a partition lease held by this host. A lease that expired and that nobody took yet
  is taken back when ARGV[3] is "1" (no one can have claimed the partition's entries in
  between); a host that is releasing the partition passes "0" so it never re-creates it.

  Input:
    KEYS[1] lease key `<prefix>:lease:{<actor>:<p>}`
    ARGV[1] host id
    ARGV[2] lease ms
    ARGV[3] "1" to take an expired, untaken lease back

  Output: 1 when this host holds the lease afterwards, 0 when another host does.
]]
local holder = redis.call("GET", KEYS[1])
if holder == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
if not holder and ARGV[3] == "1" then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 1
end
return 0
