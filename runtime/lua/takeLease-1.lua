--[[
  Takes a partition lease from a holder proven dead (runtime/host-identity.ts: a process of this
  machine that is gone), or a free one: compare-and-set, so a lease another host won meanwhile is
  never overwritten.

  Input:
    KEYS[1] lease key `<prefix>:lease:{<actor>:<p>}`
    ARGV[1] the dead holder's id ("" for a free lease)
    ARGV[2] this host's id
    ARGV[3] lease ms

  Output: 1 when this host holds the lease afterwards, 0 when another host does.
]]
local holder = redis.call("GET", KEYS[1])
if (not holder and ARGV[1] == "") or holder == ARGV[1] then
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
  return 1
end
return holder == ARGV[2] and 1 or 0
