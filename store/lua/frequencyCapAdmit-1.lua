-- Admits one send under every frequency cap of its channel, atomically (store/frequency-caps.ts).
-- KEYS[1] the zset of admitted sends (notification id -> admitted at, epoch ms)
-- ARGV[1] unused (the Redis clock is read here, one clock for every process), ARGV[2] notification id, ARGV[3] the longest window (ms), then pairs window (ms), limit
-- Returns 1 admitted (also when this notification was admitted before: a redelivery), 0 capped.
local key = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member = ARGV[2]
local longest = tonumber(ARGV[3])
if redis.call('ZSCORE', key, member) then return 1 end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - longest)
for i = 4, #ARGV, 2 do
  local window = tonumber(ARGV[i])
  local limit = tonumber(ARGV[i + 1])
  if redis.call('ZCOUNT', key, '(' .. (now - window), '+inf') >= limit then return 0 end
end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, longest)
return 1
