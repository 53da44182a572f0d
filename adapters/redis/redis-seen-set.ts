/**
 * The cluster's SeenSet: one growing Bloom filter per partition in the region's Redis, so a partition's
 * seen-set outlives the frontier node that owns it today (docs/cluster.md). The filter is core/seen's
 * `ScalableBloomFilter` laid out in Redis: slices of growing capacity (x`growth`) and tighter
 * false-positive targets (x`tightening`), so the compound rate stays under `falsePositiveBound` however
 * far it grows. Keys, for partition p and prefix `seen`:
 *
 *   seen:<p>      hash: plan, slices, count and ones of the newest slice, keys (total added)
 *   seen:<p>:<i>  slice i, a string whose bytes are the body of `BloomFilter.toBytes()` for that slice
 *
 * Bit offsets are computed here with core/seen (`fillBloomBitPositions` over `hash64pairInto`), and the
 * script (seen-script.ts) applies them in `ScalableBloomFilter.add`'s order, so an in-process filter with
 * the same plan fed the same keys holds the same bits; a partition can be copied out of Redis into a
 * local filter (or back) without rehashing.
 *
 * Atomicity: each batch of up to `maxKeysPerScript` keys is one EVALSHA, which Redis runs alone: the
 * slice count, the check of every slice and the setting of bits cannot interleave with another frontier
 * node's batch. That is what makes it free of false negatives across growth: a client whose idea of the
 * slice count is stale is told so by the script (which reads the count itself) and resends with offsets
 * for the slices that exist, instead of checking too few. Larger inputs are cut into such batches, sent
 * one after the other so a key repeated across batches still reports `true` for its later copies.
 *
 * Reconnects lose nothing: the client keeps no filter state (only a cached slice count, re-validated on
 * every call), and a server whose script cache is empty gets the body again (lua-script.ts). What it does
 * keep is the keys it knows are in each partition's filter (seen-positive-cache.ts): a link found again,
 * most links of a crawl, is answered "maybe seen" without the script call; the partition's loss or
 * rebuild and its release forget them.
 *
 * Redis is a cache, not the truth (the frontier's store is): the scripts' writes are kept out of the AOF
 * (~10 KB a page when they were in it), so a restart keeps at most what an AOF rewrite or snapshot caught,
 * and a failover may land on a replica that had not caught up. So every partition carries a guard in its
 * meta hash: `gen`, a token written when the partition was (re)built, `ver`, a count of the changes made
 * since, and `run`, the run_id of the Redis process that wrote its bits. The client remembers, per
 * partition, the generation it uses and the highest ver it was answered, and the script refuses to
 * answer (SEENLOST, `SeenSetLostError`: nothing added) when the generation is gone (an empty restart, or
 * a partition never built), the partition was written by another Redis process than the live one (loaded
 * from disk, or a promoted replica: `restarted`, whatever the client knows), is another generation
 * (rebuilt elsewhere) or ver went backwards (a lagging replica). The frontier then calls `rebuild` with
 * every URL its store knows of the partition, which re-adds them under a fresh token and lets the
 * partition answer again. The first call after this client started, or took the partition over, adopts
 * the generation it finds (it has nothing to compare with); the `run` check does not depend on it.
 *
 * One case is not a false negative but is worth knowing: a call that times out after Redis ran it has
 * added its keys, so a retry answers `true` for them; the frontier confirms a "maybe seen" in its exact
 * store where that matters (ARCHITECTURE policy table), and for every URL of a redelivered message.
 */
import { Buffer } from "node:buffer";
import { RESP_TYPES } from "redis";
import { hash64pairInto } from "../../core/hash/index.ts";
import { bloomShapeWithin, fillBloomBitPositions, MAX_BLOOM_BITS, ScalableBloomFilter } from "../../core/seen/index.ts";
import { randomBytes } from "node:crypto";
import { SeenSetLostError, type SeenLossReason, type SeenSet } from "../../core/ports/index.ts";
import { connectRedis, redisCommandError, type RedisClient, type RedisConnectOptions } from "./connect.ts";
import { LuaScript } from "./lua-script.ts";
import { SeenPositiveCache } from "./seen-positive-cache.ts";
import { SEEN_CHECK_AND_ADD_LUA, SEEN_REBUILD_LUA } from "./seen-script.ts";

export interface RedisSeenSetOptions {
  /** Key prefix; partition p lives under `<prefix>:<p>` (default "seen"). */
  keyPrefix?: string;
  /** Planned keys of a partition's first slice (default 100,000: about 140 KB per partition). */
  initialCapacity?: number;
  /** Bound on the compound false-positive rate of a partition's filter (default 0.01). */
  falsePositiveBound?: number;
  /** Capacity ratio between consecutive slices (default 2). */
  growth?: number;
  /** False-positive ratio between consecutive slices (default 0.5). */
  tightening?: number;
  /** Most keys per script run; bounds how long one call holds Redis (default 500: a few ms). */
  maxKeysPerScript?: number;
  /**
   * Slots per partition of the table of keys known to be in the filter, answered without asking Redis
   * (seen-positive-cache.ts): 4 bytes each, default 32,768 (128 KB per partition served); 0: none.
   */
  cacheSlotsPerPartition?: number;
}

/** A slice as planned: its shape and the fill at which the next one starts. */
export interface SeenSliceShape {
  bits: number;
  hashes: number;
  capacity: number;
  /** Set bits at which the slice's fill-based false-positive rate reaches its target. */
  maxOnes: number;
}

/** What Redis holds for one partition. */
export interface SeenPartitionInfo {
  slices: number;
  /** Keys added (distinct keys less the few that were false positives). */
  keys: number;
  /** Keys in and set bits of the newest slice. */
  newestCount: number;
  newestOnes: number;
  shapes: SeenSliceShape[];
}

/** The SeenSet's Redis holds a filter built under another plan. Reaction: fatal; fix the configuration. */
export class SeenPlanMismatchError extends Error {
  override readonly name = "SeenPlanMismatchError";
}

// Out of the AOF: the frontier's store rebuilds what a restart loses, and the run_id check says when (seen-script.ts).
const script = new LuaScript(SEEN_CHECK_AND_ADD_LUA, { outOfAof: true });
/** The script unpacks old slices' offsets as little-endian; a Uint32Array is in the host's byte order. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const rebuildScript = new LuaScript(SEEN_REBUILD_LUA, { outOfAof: true });
/** Script calls of a rebuild in flight at once (they pipeline on the one connection). */
const REBUILD_IN_FLIGHT = 4;
const LOSS_REASONS: readonly SeenLossReason[] = ["missing", "lagging", "changed", "rebuilding", "restarted"];

/** What the client knows of a partition's guard (see the module comment). */
interface Guard {
  /** The generation in use; "" until the first answer (then adopted). */
  token: string;
  /** The highest ver this client was answered. */
  minVer: number;
}

/** How a batch is sent: answering for a frontier, or re-adding known keys under a rebuild token. */
type Mode = { kind: "serve"; guard: Guard } | { kind: "rebuild"; token: string };
/** A batch needs at most a stale-count retry and one retry per slice it creates; far more means a bug. */
const MAX_ROUNDS_PER_BATCH = 64;

export class RedisSeenSet implements SeenSet {
  readonly keyPrefix: string;
  readonly maxKeysPerScript: number;
  private readonly plan: ScalableBloomFilter;
  private readonly planText: string;
  private readonly shapes: SeenSliceShape[] = [];
  /** Slice count per partition as last seen; the script corrects it when stale. */
  private readonly knownSlices = new Map<number, number>();
  /** Per partition; replaced (never edited back) when dropped, so answers to older calls are not adopted. */
  private readonly guards = new Map<number, Guard>();
  private readonly lanes = new Uint32Array(2);
  private readonly known: SeenPositiveCache;
  private closed = false;

  /**
   * Uses `client`, which the caller keeps and closes (see `RedisSeenSet.connect` for one that owns its
   * connection).
   */
  constructor(
    private readonly client: RedisClient,
    options: RedisSeenSetOptions = {},
    private readonly ownsClient = false,
  ) {
    const {
      keyPrefix = "seen",
      initialCapacity = 100_000,
      falsePositiveBound = 0.01,
      growth = 2,
      tightening = 0.5,
      maxKeysPerScript = 500,
      cacheSlotsPerPartition = 32_768,
    } = options;
    if (!Number.isInteger(maxKeysPerScript) || maxKeysPerScript < 1) {
      throw new RangeError(`maxKeysPerScript must be a positive integer, got ${maxKeysPerScript}`);
    }
    // The in-process filter validates the plan and is the one formula for each slice's target.
    this.plan = new ScalableBloomFilter({ initialCapacity, falsePositiveBound, growth, tightening });
    this.planText = `v1/${initialCapacity}/${falsePositiveBound}/${growth}/${tightening}`;
    this.keyPrefix = keyPrefix;
    this.maxKeysPerScript = maxKeysPerScript;
    this.known = new SeenPositiveCache(cacheSlotsPerPartition);
  }

  /** Connects to `url` and returns a set that closes the connection on `close()`. */
  static async connect(url: string, options: RedisSeenSetOptions = {}, connectOptions: RedisConnectOptions = {}): Promise<RedisSeenSet> {
    const client = await connectRedis(url, connectOptions);
    return new RedisSeenSet(client, options, true);
  }

  async checkAndAdd(partition: number, keys: readonly string[]): Promise<boolean[]> {
    if (this.closed) throw new Error("RedisSeenSet is closed");
    checkPartition(partition);
    const n = keys.length;
    const out = new Array<boolean>(n);
    if (n === 0) return out;
    const all = this.hashes(keys);
    // Keys this client already knows to be in the filter answer "maybe seen" here; the rest go to Redis.
    const ask: number[] = [];
    for (let i = 0; i < n; i++) {
      if (this.known.has(partition, all[2 * i]!, all[2 * i + 1]!)) out[i] = true;
      else ask.push(i);
    }
    if (ask.length === 0) return out;
    // Without a hit (most calls where links are new) the hashes and answers are used as they are.
    const whole = ask.length === n;
    const h = whole ? all : new Uint32Array(2 * ask.length);
    const answers = whole ? out : new Array<boolean>(ask.length);
    if (!whole) {
      for (let j = 0; j < ask.length; j++) {
        h[2 * j] = all[2 * ask[j]!]!;
        h[2 * j + 1] = all[2 * ask[j]! + 1]!;
      }
    }
    const guard = this.guardOf(partition);
    for (let start = 0; start < ask.length; start += this.maxKeysPerScript) {
      await this.runBatch(partition, { kind: "serve", guard }, h, start, Math.min(ask.length, start + this.maxKeysPerScript), answers);
    }
    // Every key asked is in the filter now. (Not if the partition was lost meanwhile: its guard is gone.)
    if (this.guards.get(partition) === guard) for (let j = 0; j < ask.length; j++) this.known.add(partition, h[2 * j]!, h[2 * j + 1]!);
    if (!whole) for (let j = 0; j < ask.length; j++) out[ask[j]!] = answers[j]!;
    return out;
  }

  /**
   * One script call with no keys: the guard check `checkAndAdd` makes (adopting the generation when this
   * client knows none yet), nothing added. Rejects with SeenSetLostError when the partition cannot answer.
   */
  async probe(partition: number): Promise<void> {
    if (this.closed) throw new Error("RedisSeenSet is closed");
    checkPartition(partition);
    await this.round(partition, { kind: "serve", guard: this.guardOf(partition) }, new Uint32Array(0), 0, 0, []);
  }

  private guardOf(partition: number): Guard {
    let guard = this.guards.get(partition);
    if (!guard) this.guards.set(partition, (guard = { token: "", minVer: 0 }));
    return guard;
  }

  /**
   * Re-adds `batches` (every URL the caller's store knows of `partition`) under a fresh generation; calls
   * of `checkAndAdd` for the partition are refused until it is done. Returns how many keys were added.
   * Rejects with SeenSetLostError when Redis lost the partition again meanwhile: call it again.
   */
  async rebuild(partition: number, batches: AsyncIterable<readonly string[]> | Iterable<readonly string[]>): Promise<number> {
    if (this.closed) throw new Error("RedisSeenSet is closed");
    checkPartition(partition);
    this.release(partition);
    const token = randomBytes(9).toString("base64url");
    await this.guardOp(partition, "begin", token);
    const running = new Set<Promise<void>>();
    let failure: unknown;
    let total = 0;
    for await (const keys of batches) {
      const h = this.hashes(keys);
      for (let start = 0; start < keys.length; start += this.maxKeysPerScript) {
        const end = Math.min(keys.length, start + this.maxKeysPerScript);
        const call: Promise<void> = this.runBatch(partition, { kind: "rebuild", token }, h, start, end, new Array<boolean>(keys.length))
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => running.delete(call));
        running.add(call);
        if (running.size >= REBUILD_IN_FLIGHT) await Promise.race(running);
        if (failure !== undefined) break;
      }
      if (failure !== undefined) break;
      total += keys.length;
    }
    await Promise.all(running);
    if (failure !== undefined) throw failure;
    const ver = Number(await this.guardOp(partition, "finish", token));
    this.guards.set(partition, { token, minVer: ver });
    return total;
  }

  /**
   * Forgets the guard of `partition` (another node serves it now, or it was lost or is being rebuilt) and
   * the keys known to be in it; the next call adopts what it finds.
   */
  release(partition: number): void {
    this.guards.delete(partition);
    this.known.drop(partition);
  }

  /** The planned shape of slice `i` (the same as `ScalableBloomFilter`'s slice i). */
  sliceShape(i: number): SeenSliceShape {
    while (this.shapes.length <= i) {
      const index = this.shapes.length;
      const target = this.plan.sliceTarget(index);
      const shape = bloomShapeWithin(target.capacity, target.falsePositiveRate, MAX_BLOOM_BITS);
      // Same line as ScalableBloomFilter.maxOnes: the fill-based rate reaches the target, less one add.
      const maxOnes = Math.floor(shape.bits * Math.pow(target.falsePositiveRate, 1 / shape.hashes)) - shape.hashes;
      this.shapes.push({ bits: shape.bits, hashes: shape.hashes, capacity: shape.capacity, maxOnes });
    }
    return this.shapes[i]!;
  }

  /** What Redis holds for `partition` (for metrics and for checking the growth plan). */
  async describe(partition: number): Promise<SeenPartitionInfo> {
    checkPartition(partition);
    const [, slices, count, ones, keys] = await this.client
      .sendCommand<(string | null)[]>(["HMGET", this.metaKey(partition), "plan", "slices", "count", "ones", "keys"])
      .catch((error: unknown) => {
        throw redisCommandError(this.client, `reading the seen-set of partition ${partition}`, error);
      });
    const s = Number(slices ?? 0);
    return {
      slices: s,
      keys: Number(keys ?? 0),
      newestCount: Number(count ?? 0),
      newestOnes: Number(ones ?? 0),
      shapes: Array.from({ length: s }, (_, i) => this.sliceShape(i)),
    };
  }

  /** The bytes of slice `i` of `partition`: the body `BloomFilter.toBytes()` of the same slice holds. */
  async readSlice(partition: number, i: number): Promise<Uint8Array> {
    checkPartition(partition);
    const reply = await this.client.sendCommand<Buffer | null>(["GET", this.sliceKey(partition, i)], {
      typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer },
    });
    const body = new Uint8Array(Math.ceil(this.sliceShape(i).bits / 8));
    if (reply) body.set(reply.subarray(0, body.length));
    return body;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient && this.client.isOpen) await this.client.close();
  }

  private hashes(keys: readonly string[]): Uint32Array {
    const h = new Uint32Array(2 * keys.length);
    for (let i = 0; i < keys.length; i++) {
      hash64pairInto(keys[i]!, this.lanes);
      h[2 * i] = this.lanes[0]!;
      h[2 * i + 1] = this.lanes[1]!;
    }
    return h;
  }

  private async runBatch(partition: number, mode: Mode, h: Uint32Array, start: number, end: number, out: boolean[]): Promise<void> {
    let at = start;
    for (let round = 0; at < end; round++) {
      if (round >= MAX_ROUNDS_PER_BATCH) throw new Error(`seen-set script for partition ${partition} made no progress in ${round} rounds`);
      at += await this.round(partition, mode, h, at, end, out);
    }
  }

  /** One script call for keys `at`..`end` (none: a guard check); returns how many it processed. */
  private async round(partition: number, mode: Mode, h: Uint32Array, at: number, end: number, out: boolean[]): Promise<number> {
    const sliceCount = Math.max(1, this.knownSlices.get(partition) ?? 1);
    // Read the guard at each round: an answer to another call may have taught it more meanwhile.
    const guardArgs = mode.kind === "serve" ? ["serve", mode.guard.token, String(mode.guard.minVer)] : ["rebuild", mode.token, "0"];
    const { keys, args } = this.scriptInput(partition, sliceCount, guardArgs, h, at, end);
    let reply: [number, number, string, string, number];
    try {
      reply = await script.run<[number, number, string, string, number]>(this.client, keys, args);
    } catch (error) {
      throw this.failure(partition, error, mode.kind === "serve" ? mode.guard : undefined);
    }
    const [slices, need, flags, gen, ver] = reply;
    if (mode.kind === "serve" && this.guards.get(partition) === mode.guard) {
      if (mode.guard.token === "") mode.guard.token = gen;
      if (mode.guard.token === gen) mode.guard.minVer = Math.max(mode.guard.minVer, Number(ver));
    }
    for (let i = 0; i < flags.length; i++) out[at + i] = flags.charCodeAt(i) === 49; // '1'
    this.knownSlices.set(partition, Math.max(Number(slices), Number(need)));
    return flags.length;
  }

  /** A failed script call as the error its caller reacts to; a loss drops the partition's guard. */
  private failure(partition: number, error: unknown, guard: Guard | undefined): Error {
    if (error instanceof Error && error.message.startsWith("SEENPLAN")) {
      return new SeenPlanMismatchError(`${error.message}; every frontier node of a region must use the same seen-set plan`, {
        cause: error,
      });
    }
    if (error instanceof Error && error.message.startsWith("SEENLOST ")) {
      const reason = error.message.split(" ", 2)[1] as SeenLossReason;
      if (guard && this.guards.get(partition) === guard) this.release(partition);
      const known = LOSS_REASONS.includes(reason) ? reason : "missing";
      return new SeenSetLostError(partition, known, `seen-set of partition ${partition}: ${error.message.slice("SEENLOST ".length)}`);
    }
    // Redis 7.0 says only "can't run this command" of a script's refused call; INFO is the one command of
    // these scripts outside what a crawler's user is usually allowed (@dangerous). A configuration error,
    // not an outage: say what to allow.
    if (error instanceof Error && (/can't run this command/.test(error.message) || /NOPERM.*'info'/is.test(error.message))) {
      return redisCommandError(
        this.client,
        `the seen-set check of partition ${partition} (its script reads the server's run_id with INFO, so the Redis user must be allowed INFO: add +info to its ACL, as core/cluster/redis-acl.ts does)`,
        error,
      );
    }
    return redisCommandError(this.client, `the seen-set check of partition ${partition}`, error);
  }

  private async guardOp(partition: number, op: "begin" | "finish", token: string): Promise<unknown> {
    try {
      return await rebuildScript.run<unknown>(this.client, [this.metaKey(partition)], [op, token]);
    } catch (error) {
      throw this.failure(partition, error, undefined);
    }
  }

  /**
   * The script's KEYS and ARGV for keys start..end (seen-script.ts): the newest slice's offsets as decimal
   * strings, the older slices' packed little-endian in one argument.
   */
  private scriptInput(
    partition: number,
    sliceCount: number,
    guardArgs: string[],
    h: Uint32Array,
    start: number,
    end: number,
  ): { keys: string[]; args: (string | Buffer)[] } {
    const keys = [this.metaKey(partition)];
    const args: (string | Buffer)[] = [this.planText, ...guardArgs, String(sliceCount), String(end - start)];
    const last = sliceCount - 1;
    let perOld = 0;
    for (let i = 0; i < sliceCount; i++) {
      const s = this.sliceShape(i);
      keys.push(this.sliceKey(partition, i));
      args.push(String(s.bits), String(s.hashes), String(s.capacity), String(s.maxOnes));
      if (i < last) perOld += s.hashes;
    }
    const old = new Uint32Array((end - start) * perOld);
    const newest = this.shapes[last]!;
    const offsets = new Uint32Array(newest.hashes);
    const packedAt = args.length;
    args.push("");
    for (let k = start, o = 0; k < end; k++) {
      for (let i = 0; i < last; i++) {
        const s = this.shapes[i]!;
        fillBloomBitPositions(h[2 * k]!, h[2 * k + 1]!, s.bits, s.hashes, old.subarray(o, o + s.hashes));
        o += s.hashes;
      }
      fillBloomBitPositions(h[2 * k]!, h[2 * k + 1]!, newest.bits, newest.hashes, offsets);
      for (let j = 0; j < offsets.length; j++) args.push(String(offsets[j]));
    }
    if (perOld > 0) {
      const packed = Buffer.from(old.buffer, old.byteOffset, old.byteLength);
      if (!LITTLE_ENDIAN) packed.swap32();
      args[packedAt] = packed;
    }
    return { keys, args };
  }

  private metaKey(partition: number): string {
    return `${this.keyPrefix}:${partition}`;
  }

  private sliceKey(partition: number, i: number): string {
    return `${this.keyPrefix}:${partition}:${i}`;
  }
}

function checkPartition(partition: number): void {
  if (!Number.isInteger(partition) || partition < 0) throw new RangeError(`partition must be a non-negative integer, got ${partition}`);
}
