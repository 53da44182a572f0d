/**
 * The cluster's ContentIndex: content fingerprints in the region's Redis, shared by every fetch node of
 * the region. Keys, with the default empty prefix:
 *
 *   fp:<fingerprint>       string: the URL that had this exact content first
 *   simhash:<j>:<vvvv>     string: the near-duplicate bucket of SimHashes whose 16-bit block j (0 = top)
 *                          is vvvv (hex), as fixed 20-byte records: SimHash (8), hash32 of the URL (4),
 *                          claim sequence number (8), big-endian, oldest first
 *   simhash:<j>:<vvvv>:u   hash: sequence number -> URL, for the records of that bucket
 *   simhash:seq            the region-wide claim sequence
 *
 * Exact: `SET fp:<fp> url NX GET` sets the owner if there is none and returns the old one otherwise, in
 * one atomic command (Redis 7.0+), so two fetch nodes racing on the same content agree on one owner.
 *
 * Near: two 64-bit SimHashes within 3 bits share at least one of their four 16-bit blocks (pigeonhole;
 * core/content/simhash-index.ts), so the candidates are the records of this hash's four buckets. One script
 * returns the four buckets and appends this claim to them, atomically, so of two near duplicates claimed at
 * the same moment the second always sees the first. The distance check runs here, with core's 64-bit
 * Hamming distance in its two-uint32 form (a bigint per record would cost more than the round trip); the
 * closest other URL within 3 bits wins, the earliest claimed on a tie, and its URL is read from the
 * bucket's hash (a second round trip, only when there is a match). Only records claimed before this pair's
 * own first claim count, and a pair already in a bucket is not appended again, so claiming a pair again
 * gives the same answer and the first of a group of near duplicates stays the original.
 *
 * Why fixed binary records rather than a set of `hash:url` members: at scale every bucket is full, so each
 * claim reads 4 x `bucketCap` records; as four bulk strings that costs Redis a few memcpys, where a sorted
 * set costs a Lua value and a RESP element per member (measured ~50x slower at 512 per bucket).
 *
 * Bounded buckets: a hot block value (short or boilerplate pages share blocks) would otherwise grow without
 * limit, and at scale all buckets fill. A bucket keeps its newest `bucketCap` records (default 256): once
 * it holds an eighth more, the oldest are cut, with their URLs. So a claim reads at most 4 x 1.125 x
 * `bucketCap` records (~23 KB at the default), and the near index holds at most 4 x 65,536 x 1.125 x
 * `bucketCap` records: near duplicates are found among roughly the last 65,536 x `bucketCap` claims (16.7M
 * at the default), and a page near an older one is missed unless another shared block still holds it. The
 * exact index is not bounded: one key per distinct content, the price of never parsing an exact
 * duplicate's links twice.
 *
 * Across a Redis restart: the exact index is in the AOF (kept for ever, and not rebuilt from anywhere). The
 * near index is not (its script runs `outOfAof`): it already forgets all but the newest claims of each
 * bucket, and a restart brings back the buckets, URLs and sequence as the last AOF rewrite caught them (one
 * consistent moment), or nothing; near duplicates of pages claimed since are then missed and stored as
 * originals, as pages near an evicted record are. Nothing is fetched again for it.
 */
import { Buffer } from "node:buffer";
import { RESP_TYPES } from "redis";
import { popcount32, toParts } from "../../core/content/index.ts";
import { hash32 } from "../../core/hash/index.ts";
import type { ContentIndex } from "../../core/ports/index.ts";
import { connectRedis, redisCommandError, type RedisClient, type RedisConnectOptions } from "./connect.ts";
import { LuaScript } from "./lua-script.ts";

export interface RedisContentIndexOptions {
  /** Prepended to every key, e.g. "content:" (default ""). */
  keyPrefix?: string;
  /** Records a SimHash bucket keeps; the oldest go first (default 256). */
  bucketCap?: number;
}

/** Largest distance reported as a near duplicate; the four-block buckets cannot find more. */
const NEAR_DISTANCE = 3;
/** SimHash hi, lo, URL hash32 (the record's identity), then the sequence number as a uint64. */
const RECORD_BYTES = 20;
const ID_BYTES = 12;

/**
 * KEYS[1..4]: the four buckets, KEYS[5..8]: their URL hashes, KEYS[9]: the claim sequence.
 * ARGV[1]: the record identity (12 bytes), ARGV[2]: the URL, ARGV[3]: the cap.
 * Returns the four buckets as they were before this claim.
 */
const CLAIM_NEAR_LUA = `
local REC = ${RECORD_BYTES}
local id = ARGV[1]
local cap = tonumber(ARGV[3])
local before = {}
local seq, record, field
for i = 1, 4 do
  local bucket = redis.call('GET', KEYS[i]) or ''
  before[i] = bucket
  local recorded = false
  local from = 1
  while true do
    local at = string.find(bucket, id, from, true)
    if not at then break end
    if (at - 1) % REC == 0 then
      recorded = true
      break
    end
    from = at + 1
  end
  if not recorded then
    if not seq then
      -- The record and its hash field are the same in every bucket: made once.
      seq = redis.call('INCR', KEYS[9])
      record = id .. struct.pack('>I8', seq)
      field = string.format('%d', seq)
    end
    local size = redis.call('APPEND', KEYS[i], record)
    redis.call('HSET', KEYS[4 + i], field, ARGV[2])
    if size > (cap + math.ceil(cap / 8)) * REC then
      local cut = size - cap * REC
      local old = redis.call('GETRANGE', KEYS[i], 0, cut - 1)
      -- HDEL in chunks: unpack() is limited to a few thousand values.
      local gone = {}
      for p = 13, cut, REC do
        gone[#gone + 1] = string.format('%d', struct.unpack('>I8', old, p))
        if #gone == 1000 then
          redis.call('HDEL', KEYS[4 + i], unpack(gone))
          gone = {}
        end
      end
      if #gone > 0 then redis.call('HDEL', KEYS[4 + i], unpack(gone)) end
      redis.call('SET', KEYS[i], redis.call('GETRANGE', KEYS[i], cut, -1))
    end
  end
end
return before
`;
// Out of the AOF: a cache of recent claims (see the module comment), ~700 B a page of AOF when it was in.
const claimNearScript = new LuaScript(CLAIM_NEAR_LUA, { outOfAof: true });
const BINARY = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } };

interface Candidate {
  distance: number;
  seq: number;
  /** Buckets (0..3) holding the record; any of them has its URL. */
  buckets: number[];
}

export class RedisContentIndex implements ContentIndex {
  readonly keyPrefix: string;
  readonly bucketCap: number;
  private closed = false;

  /** Uses `client`, which the caller keeps and closes (see `RedisContentIndex.connect`). */
  constructor(
    private readonly client: RedisClient,
    options: RedisContentIndexOptions = {},
    private readonly ownsClient = false,
  ) {
    const { keyPrefix = "", bucketCap = 256 } = options;
    if (!Number.isInteger(bucketCap) || bucketCap < 1) throw new RangeError(`bucketCap must be a positive integer, got ${bucketCap}`);
    this.keyPrefix = keyPrefix;
    this.bucketCap = bucketCap;
  }

  /** Connects to `url` and returns an index that closes the connection on `close()`. */
  static async connect(
    url: string,
    options: RedisContentIndexOptions = {},
    connectOptions: RedisConnectOptions = {},
  ): Promise<RedisContentIndex> {
    const client = await connectRedis(url, connectOptions);
    return new RedisContentIndex(client, options, true);
  }

  async claimExact(fingerprint: string, url: string): Promise<string | undefined> {
    this.checkOpen();
    try {
      const owner = await this.client.sendCommand<string | null>(["SET", `${this.keyPrefix}fp:${fingerprint}`, url, "NX", "GET"]);
      return owner === null || owner === url ? undefined : owner;
    } catch (error) {
      throw redisCommandError(this.client, `the exact-duplicate claim of ${url}`, error);
    }
  }

  async claimNear(simhash: bigint, url: string): Promise<string | undefined> {
    this.checkOpen();
    try {
      return await this.nearClaim(simhash, url);
    } catch (error) {
      throw redisCommandError(this.client, `the near-duplicate claim of ${url}`, error);
    }
  }

  private async nearClaim(simhash: bigint, url: string): Promise<string | undefined> {
    const [hi, lo] = toParts(simhash);
    const urlHash = hash32(url);
    const id = Buffer.alloc(ID_BYTES);
    id.writeUInt32BE(hi, 0);
    id.writeUInt32BE(lo, 4);
    id.writeUInt32BE(urlHash, 8);
    const buckets = this.bucketKeys(hi, lo);
    const keys = [...buckets, ...buckets.map((b) => `${b}:u`), `${this.keyPrefix}simhash:seq`];
    const before = await claimNearScript.run<Buffer[]>(this.client, keys, [id, url, String(this.bucketCap)], BINARY);

    for (const candidate of nearest(before, hi, lo, urlHash)) {
      for (const j of candidate.buckets) {
        const other = await this.client.sendCommand<string | null>(["HGET", `${buckets[j]}:u`, String(candidate.seq)]);
        // Missing only if the record was cut between the claim and now (a bucket turned over meanwhile).
        if (other !== null && other !== url) return other;
      }
    }
    return undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient && this.client.isOpen) await this.client.close();
  }

  private bucketKeys(hi: number, lo: number): string[] {
    const blocks = [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff];
    return blocks.map((v, j) => `${this.keyPrefix}simhash:${j}:${v.toString(16).padStart(4, "0")}`);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error("RedisContentIndex is closed");
  }
}

/**
 * Records of other URLs within 3 bits of (hi, lo), claimed before this pair's first claim, closest first
 * and earliest first on a tie.
 */
function nearest(buckets: Buffer[], hi: number, lo: number, urlHash: number): Candidate[] {
  let cutoff = Infinity;
  for (const b of buckets) {
    for (let p = 0; p + RECORD_BYTES <= b.length; p += RECORD_BYTES) {
      if (b.readUInt32BE(p) === hi && b.readUInt32BE(p + 4) === lo && b.readUInt32BE(p + 8) === urlHash)
        cutoff = Math.min(cutoff, seqAt(b, p));
    }
  }
  const found = new Map<number, Candidate>();
  buckets.forEach((b, j) => {
    for (let p = 0; p + RECORD_BYTES <= b.length; p += RECORD_BYTES) {
      // The same URL with other content is never its own duplicate.
      if (b.readUInt32BE(p + 8) === urlHash) continue;
      const seq = seqAt(b, p);
      if (seq >= cutoff) continue;
      const distance = popcount32(b.readUInt32BE(p) ^ hi) + popcount32(b.readUInt32BE(p + 4) ^ lo);
      if (distance > NEAR_DISTANCE) continue;
      const seen = found.get(seq);
      if (seen) seen.buckets.push(j);
      else found.set(seq, { distance, seq, buckets: [j] });
    }
  });
  return [...found.values()].sort((a, b) => a.distance - b.distance || a.seq - b.seq);
}

function seqAt(b: Buffer, p: number): number {
  return b.readUInt32BE(p + 12) * 2 ** 32 + b.readUInt32BE(p + 16);
}
