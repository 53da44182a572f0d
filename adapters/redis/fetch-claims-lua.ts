/**
 * The Lua scripts of RedisFetchClaims (redis-fetch-claims.ts), apart from the class that queues and sends
 * them. One script applies a batch of claims and done marks in the order they were made, atomically: a
 * fetch node's claims of one pull and the done marks of tasks that finished in the same turn of its event
 * loop cost one round trip and one script call together, instead of one command each. The keys a script
 * touches are all in KEYS, as Redis asks.
 */
import { LuaScript } from "./lua-script.ts";

/** The op codes of the batch script's ARGV. */
export const CLAIM_OP = "c";
export const DONE_OP = "d";

/**
 * The batch, op after op. A claim takes two KEYS (the claim, its partition's ownership epoch) and four
 * ARGV (`c`, the copy, the TTL in ms, the task's ownership epoch or '' for a task without one: the epoch
 * key is then not touched); a done mark one KEY (the claim) and two ARGV (`d`, the TTL in ms). Returns two
 * entries per op: a claim's answer and its number (the age in ms for `again`, the ms left for `held`, the
 * partition's epoch for `stale`, else 0); `ok` and 0 for a done mark. Redis's clock (`TIME`) is read once:
 * the whole batch runs at one instant. A claim sets its key only when there is none and reads what was
 * there in one command (`SET NX GET`, Redis 7.0+); a done mark is `SET key done PX ttl`, whoever held it.
 */
const BATCH_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function claim(key, epochKey, copy, ttl, taskEpoch)
  if taskEpoch ~= '' then
    local epoch = tonumber(taskEpoch)
    local floor = tonumber(redis.call('GET', epochKey) or '0') or 0
    if epoch < floor then return 'stale', floor end
    if epoch > floor then redis.call('SET', epochKey, taskEpoch) end
  end
  local v = redis.call('SET', key, copy .. '@' .. string.format('%d', now), 'NX', 'GET', 'PX', ttl)
  if not v then return 'new', 0 end
  if v == 'done' then return 'done', 0 end
  local at = string.find(v, '@', 1, true)
  if not at or string.sub(v, 1, at - 1) ~= copy then return 'other-copy', 0 end
  local rest = string.sub(v, at + 1)
  local at2 = string.find(rest, '@', 1, true)
  if at2 then
    local held = tonumber(string.sub(rest, at2 + 1)) or 0
    if held > now then return 'held', held - now end
    rest = string.sub(rest, 1, at2 - 1)
  end
  local since = tonumber(rest) or now
  return 'again', math.max(0, now - since)
end
local out = {}
local k, a = 1, 1
while a <= #ARGV do
  if ARGV[a] == '${DONE_OP}' then
    redis.call('SET', KEYS[k], 'done', 'PX', ARGV[a + 1])
    out[#out + 1] = 'ok'
    out[#out + 1] = 0
    k = k + 1
    a = a + 2
  else
    local kind, n = claim(KEYS[k], KEYS[k + 1], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
    out[#out + 1] = kind
    out[#out + 1] = n
    k = k + 2
    a = a + 4
  end
end
return out
`;
export const batchScript = new LuaScript(BATCH_LUA);

/**
 * KEYS[1]: the claim; ARGV[1]: the copy, ARGV[2]: for how long (ms) its attempt holds the outputs. Only the
 * copy's own claim is touched; its TTL is kept (KEEPTTL), and a done mark or another copy's claim stays.
 * Rare (only while the bus refuses a task's outputs), so it stays a call of its own.
 */
const HOLD_LUA = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local at = string.find(v, '@', 1, true)
if not at or string.sub(v, 1, at - 1) ~= ARGV[1] then return 0 end
local rest = string.sub(v, at + 1)
local at2 = string.find(rest, '@', 1, true)
if at2 then rest = string.sub(rest, 1, at2 - 1) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', KEYS[1], ARGV[1] .. '@' .. rest .. '@' .. string.format('%d', now + tonumber(ARGV[2])), 'KEEPTTL')
return 1
`;
export const holdScript = new LuaScript(HOLD_LUA);
