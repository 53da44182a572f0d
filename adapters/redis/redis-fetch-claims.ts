/**
 * The cluster's FetchClaims (core/ports/fetch-claims.ts): one key per task in the region's Redis, shared by
 * every fetch node of the region, under `crawler:`, the namespace the crawler's Redis ACL user keeps for it
 * (core/cluster/redis-acl.ts):
 *
 *   crawler:fetch-claim:<task id>   string, expiring: `<copy>@<ms>`, the stream sequence of the copy holding
 *                                   the task and when it claimed it (Redis's clock), then `@<ms>` until
 *                                   when its attempt holds the outputs once it said so (hold), or `done`
 *   crawler:fetch-owner-epoch:<p>   string, kept: the highest ownership epoch a task of partition p was
 *                                   claimed under (a claim with an owner: a task of an older epoch is
 *                                   `stale`); one key per partition, a few bytes each
 *
 * A claim reads Redis's clock (`TIME`, so every node's claims are aged on one clock), sets the claim when
 * there is none or reads the one there, and answers new / again (with the age) / held (with what its
 * attempt's word has left) / other-copy / done, atomically, so of two fetch nodes delivered two copies at
 * the same moment exactly one holds the task. Marking a task done is `SET key done PX ttl`. Claiming again
 * changes nothing (nor extends the TTL). While the connection is down both fail at once rather than wait.
 *
 * Batched: the claims and done marks made in one turn of the event loop (a pull's tasks claimed together,
 * the tasks whose results were confirmed by one read of the bus's socket marked done together) go to Redis
 * as one script call (fetch-claims-lua.ts), applied in the order they were made, sent once the turn ends
 * (`setImmediate`), so none waits longer than the turn. Measured before this, each was a command of its
 * own: ~8 µs of the fetch node's CPU and ~3-5 µs of redis-server's per command (bench/redis.bench.ts).
 * A batch that fails fails each of its calls, with its own message. Holding is one script call of its own.
 *
 * Memory: measured on redis-server 7.0.15 with task ids as frontier nodes make them (500,000 keys,
 * `used_memory` before and after), 160 bytes per task done and 192 per claim under way; a region fetching
 * 1,157 pages a second (100 million a day) with the default 10 min TTL holds about 694,000 keys, nearly all
 * done: about 111 MB.
 */
import type { FetchClaim, FetchClaims, TaskOwner } from "../../core/ports/index.ts";
import { connectRedis, redisCommandError, type RedisClient, type RedisConnectOptions } from "./connect.ts";
import { batchScript, CLAIM_OP, DONE_OP, holdScript } from "./fetch-claims-lua.ts";
import { TurnBatch } from "./turn-batch.ts";

export interface RedisFetchClaimsOptions {
  /** Prepended to every claim's key (default "crawler:fetch-claim:"). */
  keyPrefix?: string;
  /** Prepended to every partition's ownership epoch key (default "crawler:fetch-owner-epoch:"). */
  ownerEpochPrefix?: string;
}

/** Most ops in one script call: a batch this long is sent at once (callers are bounded by their concurrency anyway). */
const MAX_BATCH_OPS = 128;

/** A claim or done mark waiting for its turn's batch. */
interface ClaimOp {
  keys: readonly string[];
  args: readonly string[];
  /** What the op is, for its error (`the fetch claim of task x`). */
  what: string;
}

export class RedisFetchClaims implements FetchClaims {
  readonly keyPrefix: string;
  readonly ownerEpochPrefix: string;
  private closed = false;
  /** Claims and done marks of this turn, sent together when it ends (fetch-claims-lua.ts: two reply entries an op). */
  private readonly batch: TurnBatch<ClaimOp, [string, number]>;

  /** Uses `client`, which the caller keeps and closes (see `RedisFetchClaims.connect`). */
  constructor(
    private readonly client: RedisClient,
    options: RedisFetchClaimsOptions = {},
    private readonly ownsClient = false,
  ) {
    this.keyPrefix = options.keyPrefix ?? "crawler:fetch-claim:";
    this.ownerEpochPrefix = options.ownerEpochPrefix ?? "crawler:fetch-owner-epoch:";
    this.batch = new TurnBatch({
      maxOps: MAX_BATCH_OPS,
      ready: () => client.isReady,
      send: (keys, args) => batchScript.run<Array<string | number>>(client, keys, args),
      answerOf: (reply, i) => [String(reply[2 * i]), Number(reply[2 * i + 1])],
      downError: () => new Error("not sent"),
      failure: (op, error) => redisCommandError(client, op.what, error),
    });
  }

  /** Connects to `url` and returns claims that close the connection on `close()`. */
  static async connect(
    url: string,
    options: RedisFetchClaimsOptions = {},
    connectOptions: RedisConnectOptions = {},
  ): Promise<RedisFetchClaims> {
    const client = await connectRedis(url, connectOptions);
    return new RedisFetchClaims(client, options, true);
  }

  async claim(taskId: string, copy: number, ttlMs: number, owner?: TaskOwner): Promise<FetchClaim> {
    this.check(ttlMs);
    const what = `the fetch claim of task ${taskId}`;
    this.connected(what);
    const [kind, n] = await this.batch.add({
      keys: [this.key(taskId), `${this.ownerEpochPrefix}${owner?.partition ?? "none"}`],
      args: [CLAIM_OP, String(copy), String(ttlMs), owner ? String(owner.epoch) : ""],
      what,
    });
    if (kind === "new" || kind === "done" || kind === "other-copy") return { kind };
    if (kind === "again") return { kind, ageMs: Number(n) };
    if (kind === "held") return { kind, forMs: Number(n) };
    if (kind === "stale") return { kind, ownerEpoch: Number(n) };
    throw new Error(`${what}: Redis answered ${JSON.stringify([kind, n])}, which the claim script never returns`);
  }

  async done(taskId: string, ttlMs: number): Promise<void> {
    this.check(ttlMs);
    const what = `marking task ${taskId} done`;
    this.connected(what);
    await this.batch.add({ keys: [this.key(taskId)], args: [DONE_OP, String(ttlMs)], what });
  }

  async hold(taskId: string, copy: number, forMs: number): Promise<void> {
    this.check(forMs);
    this.connected(`holding task ${taskId}`);
    try {
      await holdScript.run<number>(this.client, [this.key(taskId)], [String(copy), String(forMs)]);
    } catch (error) {
      throw redisCommandError(this.client, `holding task ${taskId}`, error);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Calls already made are sent and answered before the connection goes.
    await this.batch.settled();
    if (this.ownsClient && this.client.isOpen) await this.client.close();
  }

  private key(taskId: string): string {
    return `${this.keyPrefix}${taskId}`;
  }

  /**
   * Fails at once while the connection is down: a claim sits on the path of every fetch, and node-redis
   * would hold the command until its command timeout (5 s) before failing it, every task of a Redis outage
   * waiting that long (its caller fetches unclaimed instead).
   */
  private connected(what: string): void {
    if (!this.client.isReady) throw redisCommandError(this.client, what, new Error("not sent"));
  }

  private check(ttlMs: number): void {
    if (this.closed) throw new Error("RedisFetchClaims is closed");
    if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
}
