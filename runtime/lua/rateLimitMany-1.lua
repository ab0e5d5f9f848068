--[[
  Several takes from one GCRA limit in one call, each exactly as rateLimit-1.lua would answer it
  had the takes arrived one after another at the same instant (the callers of one event-loop turn
  on one key: one script run instead of one per caller). A refused take takes nothing, so a later,
  smaller one may still be allowed, as with separate calls.

  Input:
    KEYS[1] limiter key; holds the theoretical arrival time (TAT, epoch ms)
    ARGV[1] limit      units allowed per period (> 0)
    ARGV[2] periodMs   period length in ms (> 0)
    ARGV[3..] cost     units each take takes, in call order (0 only peeks)

  Output: { nowMs, then per take: allowed (1|0), remaining, resetAfterMs, retryAfterMs }
    (the fields of rateLimit-1.lua's answer, without its trailing nowMs)
]]
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = period / limit

local tat = tonumber(redis.call("GET", KEYS[1]) or now) or now
local stored, storedTat = nil, nil
local out = { now }
for i = 3, #ARGV do
  local cost = tonumber(ARGV[i])
  if tat < now then tat = now end
  local newTat = tat + cost * interval
  local allowAt = newTat - period
  -- The epsilon absorbs float error from fractional intervals (e.g. 1000 / 3).
  if allowAt - now > 1e-6 then
    local remaining = math.floor((now - (tat - period)) / interval + 1e-6)
    if remaining < 0 then remaining = 0 end
    out[#out + 1] = 0; out[#out + 1] = remaining; out[#out + 1] = math.ceil(tat - now); out[#out + 1] = math.ceil(allowAt - now)
  else
    if cost > 0 then
      -- what rateLimit-1.lua stores and its next call reads back: the TAT rounded to 3 decimals
      stored, storedTat = string.format("%.3f", newTat), newTat
      tat = tonumber(stored)
    end
    local remaining = math.floor((now - (newTat - period)) / interval + 1e-6)
    if remaining < 0 then remaining = 0 end
    out[#out + 1] = 1; out[#out + 1] = remaining; out[#out + 1] = math.ceil(newTat - now); out[#out + 1] = 0
  end
end
if stored then
  redis.call("SET", KEYS[1], stored, "PX", math.max(1, math.ceil(storedTat - now)))
end
return out
