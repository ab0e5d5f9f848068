--[[
  Puts a dead letter's message back on its partition stream, once: the first call appends it as a
  new entry (a new entry id, so no failure count: a fresh delivery count) and remembers the new id
  under the dead letter's id; a repeated call (the caller crashed before deleting the dead letter)
  returns that id without appending again. Both keys share the partition's hash tag, so this runs
  on Redis Cluster too; the dead-letter stream (another slot) is deleted from by the caller after.

  Input:
    KEYS[1] stream    the partition stream `<prefix>:{<actor>:<p>}` (p = the partition of the key)
    KEYS[2] redriven  hash `<prefix>:{<actor>:<p>}:redriven`, dead-letter id => new entry id
    ARGV[1] dead-letter id (its id in `<prefix>:dead:<actor>`)
    ARGV[2] key       the message's actor key (stream field k)
    ARGV[3] message   the message JSON (stream field m)
    ARGV[4] ttl ms    how long the hash remembers (a redrive completes long before)

  Output: { new entry id, 1 when appended now | 0 when an earlier call had appended it }.
]]
local done = redis.call("HGET", KEYS[2], ARGV[1])
if done then
  return { done, 0 }
end
local id = redis.call("XADD", KEYS[1], "*", "k", ARGV[2], "m", ARGV[3], "r", ARGV[1])
redis.call("HSET", KEYS[2], ARGV[1], id)
redis.call("PEXPIRE", KEYS[2], tonumber(ARGV[4]))
return { id, 1 }
