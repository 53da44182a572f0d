/**
 * The Lua side of `RedisSeenSet`: one atomic check-and-add for a batch of keys of one partition. The client
 * sends bit offsets it computed with core/seen (so Redis and the in-process filter share one definition of
 * where a key lands); the script only reads and sets bits and keeps the growth bookkeeping, in exactly the
 * order `ScalableBloomFilter.add` does, so the same keys in the same order give the same bytes.
 *
 * KEYS[1]      the partition's meta hash: plan, slices (S), count and ones of the newest slice, keys, and
 *              the guard: gen (the generation: a token written when the partition was last (re)built),
 *              ver (a counter of changes since), rebuild (the token of a rebuild under way), run (the
 *              run_id of the Redis process that has held the partition's bits since its rebuild began)
 * KEYS[1 + i]  slice i - 1 (a plain string, bits in Redis's SETBIT order), for i = 1..E
 * ARGV[1]      the plan (initial capacity, bound, growth, tightening): a filter built under another plan
 *              has other slice shapes, so mixing the two would give false negatives; refused (SEENPLAN)
 * ARGV[2]      mode: "serve" (a frontier admitting URLs) or "rebuild" (re-adding known keys)
 * ARGV[3]      serve: the generation the client knows ("" when it knows none yet: it adopts what is there);
 *              rebuild: the token of the rebuild
 * ARGV[4]      serve: the highest ver the client was answered (the cache must hold at least that many changes)
 * ARGV[5]      E, the number of slices the client sent offsets for (its view of S)
 * ARGV[6]      n, the number of keys
 * ARGV[7..]    per slice: bits, hashes, capacity, maxOnes (set bits at which the slice counts as full)
 * then         the offsets for the old slices 0 .. E - 2 as one binary argument: per key, slice 0's, then
 *              slice 1's ..., each a little-endian uint32 ("" when E = 1)
 * then         the offsets for slice E - 1, the newest, as decimal strings: per key, its k offsets
 *
 * Why two forms: every offset of the newest slice goes into a BITFIELD, and redis.call takes a string as it
 * is but formats a number with snprintf; an old slice is read with GETBIT up to its first 0, about two of
 * its k offsets for a key it lacks, so its offsets travel packed and only those read become numbers.
 * Sent as strings too, they were most of the cost of a grown filter on both sides (each is one RESP
 * argument to encode, parse and turn into a Lua string).
 *
 * The guard is what makes Redis a cache rather than the truth: a partition whose filter Redis lost (an
 * empty restart: no gen), that lags behind what this client was told (a failover to a replica that had
 * not caught up: ver too small), that someone else rebuilt, or that is being rebuilt, answers SEENLOST
 * <reason> and adds nothing, instead of "not seen". The frontier then rebuilds it from its store.
 *
 * Kept out of the AOF: both scripts run `outOfAof` (lua-script.ts): their writes go to replicas only,
 * never to the AOF: a new URL's BITFIELD written there whole was ~10 KB of AOF a page, for a filter the
 * frontier's store can rebuild. What a restart brings back of a partition is then whatever an AOF rewrite
 * or an RDB snapshot happened to catch: an older filter that may lack keys answered "not seen" since, and
 * that no client could tell from a current one by its gen and ver (a frontier node that restarted at the
 * same moment adopts what it finds). Hence `run`: the run_id of the Redis process that wrote the bits, set
 * when a rebuild begins and checked by every call against the live process's (`INFO server`: random at
 * each start, never persisted nor shared with a replica). A partition loaded from disk, or served by a
 * promoted replica, carries another process's run_id and answers SEENLOST restarted; a partition without
 * `run` (written before this field existed) too. Every bit is written by a call that checked `run` first,
 * and a rebuild's calls check it too, so a restart in the middle of a rebuild cannot finish it half done.
 * INFO costs about 8 us a call (a few a second per partition), the AOF it saves about 2.5 us a new URL.
 *
 * Per key: present if all its bits are set in an old slice (GETBIT, stopping at the first 0; newest old
 * slice first, since it holds the most keys), else in the newest; a newest slice that is not full is
 * checked and set in one BITFIELD (the old bits say whether the key was there); when it is full the key is
 * checked with GETBIT and, if new, goes to a new slice, which is allocated at its full size (SETBIT at its
 * last bit) so the string is byte for byte the filter body.
 *
 * Returns {S, need, flags, gen, ver}: S after the call, flags one '0'/'1' per processed key in order, the
 * partition's generation and its ver after the call (ver counts calls that added a key). When the
 * client's E is stale (S > E) or the batch needs a slice it sent no offsets for, the script stops before
 * that key and returns need = the E to send for the rest (keys already processed stay processed).
 */
export const SEEN_CHECK_AND_ADD_LUA = `
${liveRunIdLua()}
local meta = KEYS[1]
local plan = ARGV[1]
local mode = ARGV[2]
local token = ARGV[3]
local E = tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local st = redis.call('HMGET', meta, 'plan', 'slices', 'count', 'ones', 'gen', 'ver', 'rebuild', 'keys', 'run')
if st[1] and st[1] ~= plan then
  return redis.error_reply('SEENPLAN ' .. meta .. ' was built with plan ' .. st[1] .. ' but this client uses ' .. plan)
end
local gen = st[5]
local ver = tonumber(st[6]) or 0
local live = liveRunId()
if mode == 'serve' then
  if not gen then
    if st[7] then return redis.error_reply('SEENLOST rebuilding ' .. meta .. ' is being rebuilt') end
    return redis.error_reply('SEENLOST missing ' .. meta .. ' has no generation: never built, or Redis lost it')
  end
  if st[9] ~= live then
    return redis.error_reply('SEENLOST restarted ' .. meta .. ' was written by Redis process ' .. (st[9] or 'none') .. ', not by this one (' .. live .. '): loaded from disk or a replica, it may lack keys kept out of the AOF')
  end
  if token ~= '' and gen ~= token then
    return redis.error_reply('SEENLOST changed ' .. meta .. ' was rebuilt (generation ' .. gen .. ', this client knew ' .. token .. ')')
  end
  if ver < tonumber(ARGV[4]) then
    return redis.error_reply('SEENLOST lagging ' .. meta .. ' holds ' .. ver .. ' changes but ' .. ARGV[4] .. ' were confirmed to this client')
  end
elseif mode == 'rebuild' then
  if st[7] ~= token or st[9] ~= live then
    return redis.error_reply('SEENLOST rebuilding ' .. meta .. ' is no longer rebuilt under token ' .. token .. ' by this Redis process (lost again, restarted, or taken over)')
  end
else
  return redis.error_reply('ERR seen-set script: unknown mode ' .. tostring(mode))
end
local S = tonumber(st[2]) or 0
local count = tonumber(st[3]) or 0
local ones = tonumber(st[4]) or 0
if S > E then return {S, S, '', gen or '', ver} end

local bits, ks, caps, maxOnes, starts = {}, {}, {}, {}, {}
local a = 7
local per = 0
for i = 1, E do
  bits[i] = tonumber(ARGV[a])
  ks[i] = tonumber(ARGV[a + 1])
  caps[i] = tonumber(ARGV[a + 2])
  maxOnes[i] = tonumber(ARGV[a + 3])
  starts[i] = per
  per = per + ks[i]
  a = a + 4
end
local packed = ARGV[a]
local first = a + 1
-- Offsets per key: kE strings for slice E from ARGV[first], perOld packed ones for the slices before it.
local kE = ks[E]
local perOld = starts[E]

-- Whether key x's bits are all set in slice i. GETBIT stops at the first 0: a key absent from a half-full
-- slice costs about two calls. (One BITFIELD_RO of k GETs costs as much as ~8 GETBITs, and old slices
-- mostly answer "absent".)
local function has(i, x)
  local key = KEYS[i + 1]
  if i == E then
    local p = first + (x - 1) * kE
    for j = 0, kE - 1 do
      if redis.call('GETBIT', key, ARGV[p + j]) == 0 then return false end
    end
    return true
  end
  local at = ((x - 1) * perOld + starts[i]) * 4 + 1
  local o
  for j = 1, ks[i] do
    o, at = struct.unpack('<I4', packed, at)
    if redis.call('GETBIT', key, o) == 0 then return false end
  end
  return true
end

-- Sets the key's bits in slice i with one BITFIELD (cheaper than k SETBITs, which are write commands
-- each); returns how many were 0 before. The op list is built once per slice and only its offsets change.
-- Every argument is a string: redis.call formats a Lua number with snprintf, and the value 1 as a number
-- made a key cost 35 % more server CPU (4.97 against 3.68 us per key, 50-key batches, one slice). One
-- BITFIELD per key is on purpose: redis.call reuses the objects of a call's first 32 arguments from one
-- call to the next and allocates the others, so one BITFIELD for a whole batch of keys (1,400 arguments
-- for 50 keys) measured 35 % more server CPU per key than one per key (2 + 4k arguments, 34 at k = 8).
local opsBySlice = {}
local function add(i, x)
  local ops = opsBySlice[i]
  if not ops then
    ops = {}
    for j = 0, ks[i] - 1 do
      ops[4 * j + 1] = 'SET'
      ops[4 * j + 2] = 'u1'
      ops[4 * j + 4] = '1'
    end
    opsBySlice[i] = ops
  end
  if i == E then
    local p = first + (x - 1) * kE
    for j = 0, kE - 1 do ops[4 * j + 3] = ARGV[p + j] end
  else
    -- Only when this call makes slices it sent as old ones (a rebuild after Redis lost the partition).
    local at = ((x - 1) * perOld + starts[i]) * 4 + 1
    for j = 0, ks[i] - 1 do ops[4 * j + 3], at = struct.unpack('<I4', packed, at) end
  end
  local old = redis.call('BITFIELD', KEYS[i + 1], unpack(ops))
  local fresh = 0
  for j = 1, #old do
    if old[j] == 0 then fresh = fresh + 1 end
  end
  return fresh
end

local flags = {}
local added = 0
local need = 0
for x = 1, n do
  local present = false
  -- Old slices, newest first: a larger slice holds more keys, so a seen key is found sooner.
  for i = S - 1, 1, -1 do
    if has(i, x) then
      present = true
      break
    end
  end
  local stored = false
  if not present and S > 0 then
    if count < caps[S] and ones < maxOnes[S] then
      local fresh = add(S, x)
      if fresh == 0 then
        present = true
      else
        count = count + 1
        ones = ones + fresh
        stored = true
      end
    else
      present = has(S, x)
    end
  end
  if not present and not stored then
    if S >= E then
      need = S + 1
      break
    end
    S = S + 1
    redis.call('SETBIT', KEYS[S + 1], bits[S] - 1, 0)
    count = 1
    ones = add(S, x)
    stored = true
  end
  if stored then added = added + 1 end
  flags[x] = present and '1' or '0'
end

-- One HSET with every field that changed (keys and ver too, read above: the script runs alone), and none
-- when no key was added: a write command goes to the AOF and the replicas even when it writes the values
-- already there, and a batch of URLs already seen is the usual one.
if added > 0 then
  local total = (tonumber(st[8]) or 0) + added
  if mode == 'serve' then
    ver = ver + 1
    redis.call('HSET', meta, 'plan', plan, 'slices', S, 'count', count, 'ones', ones, 'keys', total, 'ver', ver)
  else
    redis.call('HSET', meta, 'plan', plan, 'slices', S, 'count', count, 'ones', ones, 'keys', total)
  end
end
return {S, need, table.concat(flags), gen or '', ver}
`;

/**
 * The rebuild bookkeeping of a partition (KEYS[1] its meta hash, ARGV[1] the op, ARGV[2] the rebuild's
 * token):
 *
 *   begin    drops the generation and marks a rebuild under this token, by this Redis process (`run`):
 *            from now on "serve" calls are refused (SEENLOST rebuilding) until it finishes; bits already
 *            there stay (a superset of the keys is still free of false negatives)
 *   finish   if the rebuild is still this token's and this process's (Redis did not lose it again nor
 *            restart meanwhile), makes the token the generation and returns ver (one more than before: the
 *            changes of the rebuild); else SEENLOST rebuilding, and the caller starts over
 *
 * Its writes stay out of the AOF like the check's (see the check's comment).
 */
export const SEEN_REBUILD_LUA = `
${liveRunIdLua()}
local meta = KEYS[1]
local op = ARGV[1]
local token = ARGV[2]
if op == 'begin' then
  redis.call('HDEL', meta, 'gen')
  redis.call('HSET', meta, 'rebuild', token, 'run', liveRunId())
  return 0
elseif op == 'finish' then
  local st = redis.call('HMGET', meta, 'rebuild', 'run')
  if st[1] ~= token or st[2] ~= liveRunId() then
    return redis.error_reply('SEENLOST rebuilding ' .. meta .. ' lost its rebuild under token ' .. token .. ' before it finished (lost, restarted, or taken over)')
  end
  redis.call('HDEL', meta, 'rebuild')
  redis.call('HSET', meta, 'gen', token)
  return redis.call('HINCRBY', meta, 'ver', 1)
end
return redis.error_reply('ERR seen-set rebuild script: unknown op ' .. tostring(op))
`;

/**
 * The opening of both scripts (a function, hoisted, so the scripts above can use it): `liveRunId()` is the
 * run_id of the Redis process running them, which Redis draws at random at each start and never persists
 * (`INFO server`; the crawler's ACL user is allowed INFO for this, core/cluster/redis-acl.ts).
 */
function liveRunIdLua(): string {
  return `
local function liveRunId()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
end`;
}
