--[[
  Appends many messages to one partition stream in one call: sendMany groups its messages by
  partition, so a bulk send costs one command per partition chunk instead of one per message.

  Input:
    KEYS[1] stream `<prefix>:{<actor>:<p>}`
    ARGV    pairs: key 1, message JSON 1, key 2, message JSON 2, ...

  Output: the new entry ids, in argument order.
]]
local ids = {}
for i = 1, #ARGV, 2 do
  ids[#ids + 1] = redis.call("XADD", KEYS[1], "*", "k", ARGV[i], "m", ARGV[i + 1])
end
return ids
