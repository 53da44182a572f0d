/**
 * The Lua of RedisAddressGate's calls (redis-address-gate.ts) made in one turn of a fetch node's event loop:
 * entries, arrivals and leaves, applied in the order they were made, in one script call. Each was a script
 * call of its own (three a page: one entry, one arrival, one leave); a turn of a busy fetch node makes
 * several (a pull's claimed tasks enter together, responses that ended in one turn leave together). An
 * arrival ends its batch (the gate sends it at once, with the ops queued before it).
 * Redis's clock (`TIME`) is read once: the batch runs at one instant. Holder keys are named from their members
 * (a single Redis per region, not a Redis Cluster, so keys need not all be KEYS).
 *
 * ARGV[1]: the holder keys' prefix, ARGV[2]: this gate's holder, ARGV[3]: the holder key's life (ms); then op
 * after op:
 *
 *   e  (enter)   KEYS: the passes held, when the last request arrived, the request on its way;
 *                ARGV: `e`, the cap, the gap (ms), the lease (ms), the new pass's member (`<holder>:<n>`).
 *                Answers 0 (given), a positive number (ms of gap left), or -1 (at the cap, or a request on
 *                its way). The batch's first entry rewrites this holder's key (it is alive).
 *   a  (arrived) KEYS: when the last request arrived, the request on its way; ARGV: `a`, the gap (ms), the
 *                member whose request arrived. Only that pass's own mark is cleared (a lapsed one may have
 *                been replaced by another's); the gap runs from now either way. Answers 0.
 *   l  (leave)   KEYS: the passes held; ARGV: `l`, the pass given back. Answers what ZREM does.
 *
 * Returns one answer per op. Out of the AOF (every write of the gate but the holder's beat: see
 * redis-address-gate.ts).
 */
import { LuaScript } from "./lua-script.ts";

export const ENTER_OP = "e";
export const ARRIVED_OP = "a";
export const LEAVE_OP = "l";

const BATCH_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local holderPrefix = ARGV[1]
local function dead(member)
  local holder = string.match(member, '^(.*):%d+$')
  return holder ~= nil and redis.call('EXISTS', holderPrefix .. holder) == 0
end
local function enter(passes, last, onItsWay, cap, gap, lease, member)
  redis.call('ZREMRANGEBYSCORE', passes, '-inf', now)
  local mark = redis.call('GET', onItsWay)
  if mark and dead(mark) then
    redis.call('DEL', onItsWay)
    mark = false
  end
  if mark then return -1 end
  local gapUs = tonumber(gap) * 1000
  local lastUs = tonumber(redis.call('GET', last) or '')
  if lastUs and nowUs - lastUs < gapUs then return math.ceil((gapUs - (nowUs - lastUs)) / 1000) end
  if redis.call('ZCARD', passes) >= tonumber(cap) then
    for _, held in ipairs(redis.call('ZRANGE', passes, 0, -1)) do
      if dead(held) then redis.call('ZREM', passes, held) end
    end
    if redis.call('ZCARD', passes) >= tonumber(cap) then return -1 end
  end
  redis.call('ZADD', passes, now + tonumber(lease), member)
  redis.call('PEXPIRE', passes, lease)
  redis.call('SET', onItsWay, member, 'PX', lease)
  return 0
end
local out = {}
local beat = false
local k, a = 1, 4
while a <= #ARGV do
  local op = ARGV[a]
  if op == '${ENTER_OP}' then
    if not beat then
      redis.call('SET', holderPrefix .. ARGV[2], '1', 'PX', ARGV[3])
      beat = true
    end
    out[#out + 1] = enter(KEYS[k], KEYS[k + 1], KEYS[k + 2], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4])
    k = k + 3
    a = a + 5
  elseif op == '${ARRIVED_OP}' then
    if redis.call('GET', KEYS[k + 1]) == ARGV[a + 2] then redis.call('DEL', KEYS[k + 1]) end
    if tonumber(ARGV[a + 1]) > 0 then redis.call('SET', KEYS[k], string.format('%d', nowUs), 'PX', ARGV[a + 1]) end
    out[#out + 1] = 0
    k = k + 2
    a = a + 3
  elseif op == '${LEAVE_OP}' then
    out[#out + 1] = redis.call('ZREM', KEYS[k], ARGV[a + 1])
    k = k + 1
    a = a + 2
  else
    return redis.error_reply('ERR address gate batch: unknown op ' .. tostring(op))
  end
end
return out
`;
export const addressGateBatchScript = new LuaScript(BATCH_LUA, { outOfAof: true });

/**
 * Read only. KEYS[1]: the passes held, KEYS[2]: when the last request arrived (expiring with the gap).
 * Returns {passes not lapsed, ms of gap left (<= 0: none)}.
 */
const INSPECT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'), redis.call('PTTL', KEYS[2])}
`;
export const inspectScript = new LuaScript(INSPECT_LUA);
