--[[
  Trims a partition stream without ever deleting an entry that a consumer group still needs:
  the bound is, over every group, its oldest pending id, or its last-delivered id when it has
  nothing pending. XTRIM MINID deletes only ids strictly below that bound. Never MAXLEN.

  It also forgets consumers (hosts) that hold no pending entries and were idle longer than
  ARGV[1] ms: each host restart brings a new consumer name, and XINFO CONSUMERS should list
  live hosts, not every host that ever ran. A live host that is forgotten is re-created by its
  next XREADGROUP.

  Input:
    KEYS[1] stream `<prefix>:{<actor>:<p>}`
    ARGV[1] idle ms after which a consumer without pending entries is deleted

  Output: { entries deleted, the MINID used ("" when nothing could be trimmed) }
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return { 0, "" } end

local function parse(id)
  local dash = string.find(id, "-", 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end
local function less(a, b)
  local am, as = parse(a)
  local bm, bs = parse(b)
  return am < bm or (am == bm and as < bs)
end

local groups = redis.call("XINFO", "GROUPS", KEYS[1])
if #groups == 0 then return { 0, "" } end

local bound
for _, g in ipairs(groups) do
  local info = {}
  for i = 1, #g, 2 do info[g[i]] = g[i + 1] end
  for _, c in ipairs(redis.call("XINFO", "CONSUMERS", KEYS[1], info["name"])) do
    local consumer = {}
    for i = 1, #c, 2 do consumer[c[i]] = c[i + 1] end
    if tonumber(consumer["pending"]) == 0 and tonumber(consumer["idle"]) > tonumber(ARGV[1]) then
      redis.call("XGROUP", "DELCONSUMER", KEYS[1], info["name"], consumer["name"])
    end
  end
  local candidate = info["last-delivered-id"]
  if tonumber(info["pending"]) > 0 then
    candidate = redis.call("XPENDING", KEYS[1], info["name"])[2]
  end
  if bound == nil or less(candidate, bound) then bound = candidate end
end

if bound == "0-0" then return { 0, "" } end
return { redis.call("XTRIM", KEYS[1], "MINID", bound), bound }
