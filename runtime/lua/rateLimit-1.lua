--[[
  Takes `cost` units from a GCRA (generic cell rate algorithm) limit: `limit` units per
  `periodMs`, bursting up to `limit`. The clock is Redis TIME, so every process agrees.

  Input:
    KEYS[1] limiter key; holds the theoretical arrival time (TAT, epoch ms)
    ARGV[1] limit      units allowed per period (> 0)
    ARGV[2] periodMs   period length in ms (> 0)
    ARGV[3] cost       units this call takes (0 only peeks)

  Output: { allowed (1|0), remaining, resetAfterMs, retryAfterMs, nowMs }
    remaining     units still allowed right now after this call
    resetAfterMs  ms until the limit is fully replenished
    retryAfterMs  0 when allowed, else ms until this cost would be allowed
]]
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = period / limit

local tat = tonumber(redis.call("GET", KEYS[1]) or now) or now
if tat < now then tat = now end

local newTat = tat + cost * interval
local allowAt = newTat - period
-- The epsilon absorbs float error from fractional intervals (e.g. 1000 / 3).
if allowAt - now > 1e-6 then
  local remaining = math.floor((now - (tat - period)) / interval + 1e-6)
  if remaining < 0 then remaining = 0 end
  return { 0, remaining, math.ceil(tat - now), math.ceil(allowAt - now), now }
end

if cost > 0 then
  redis.call("SET", KEYS[1], string.format("%.3f", newTat), "PX", math.max(1, math.ceil(newTat - now)))
end
local remaining = math.floor((now - (newTat - period)) / interval + 1e-6)
if remaining < 0 then remaining = 0 end
return { 1, remaining, math.ceil(newTat - now), 0, now }
