/**
 * The cluster's AddressGate (core/ports/address-gate.ts): the cap per server address held in the region's
 * Redis, shared by every fetch node of the region, under `crawler:` (the namespace of the crawler's ACL user):
 *
 *   crawler:address:<server>        sorted set of the passes held now: member `<holder>:<n>`, score the
 *                                   time (Redis's clock, ms) at which the pass lapses if never given back
 *   crawler:address-last:<server>   string, expiring after the gap: when the last request was known to
 *                                   have reached the server (µs, so the gap holds exactly, not to the ms)
 *   crawler:address-unconfirmed:<server>  string, expiring after the lease: the pass given whose request is
 *                                   not known to have reached the server yet (no other pass is given
 *                                   meanwhile: the gap runs from the arrival, see the port)
 *   crawler:address-holder:<holder> string, expiring after `holderTtlMs`: this gate (one per fetch node) is
 *                                   alive; rewritten every fifth of that and on every entry
 *
 * Entering reads Redis's clock (`TIME`, so every node's passes are timed on one clock), drops lapsed passes,
 * and gives a pass when fewer than the cap are held and the gap since the last request arrived has passed and
 * no request is on its way, atomically, so two nodes asking at once never both get the last slot. When it
 * gives none it says how long the gap has left (the caller sleeps exactly that) or that the set is full or a
 * request is on its way (the caller asks again every POLL_MS, at most until its wait is over). An arrival
 * sets the time (from Redis's clock) and leaving is a `ZREM`. The entries and leaves a gate makes in one turn
 * of the event loop go as one script call, in the order made (address-gate-lua.ts; they were a call each); an
 * arrival is sent at once, with whatever the turn had queued before it, so others see it as soon as it is
 * made. A leave sent at the turn's end holds its slot that much longer: stricter, never looser.
 *
 * A pass lapses after `leaseMs` (the fetch path's connect and response timeouts and a margin: no request
 * holds its pass longer), and so does its mark of a request on its way. A fetch node killed with -9 stops
 * rewriting its holder key, and an entry that finds a pass or mark of a holder whose key is gone drops it
 * then: the dead node holds its slots, and its server's next pass, for `holderTtlMs` (10 s), not the lease
 * (35 s by default; held for the lease, a killed node's request stalled its host 35 s in the fault row
 * `fetch-node-killed-mid-crawl`, where 16 s were allowed). A node frozen longer than that loses its passes
 * the same way; its requests already sent may then overlap others' when it runs again (as after Redis
 * restarted empty, below). Redis restarted without its data forgets the passes held: until those
 * requests end (at most `leaseMs`), up to twice the cap can be in flight to one address. The gate's writes
 * are kept out of the AOF (`outOfAof` scripts; only the holder's beat, one SET per node every 2 s, is in
 * it): every key lives at most the lease, the gap or the holder's life, and a restart from the AOF comes
 * back with what the last rewrite caught, or nothing. An older state is only stricter while it lasts (a
 * pass already given back still held, a mark of a request that arrived: both lapse with their lease) or
 * equal to an empty one (a last arrival older than the one lost: the gap runs from it, as it does from
 * none), and Redis down already gives passes unguarded; the AOF kept them at ~1.7 KB a page, half of
 * what the crawl wrote to it. While Redis cannot answer, a pass is given unguarded (each host's own
 * politeness still holds), counted by the caller.
 *
 * Memory: per server with a request in flight, a sorted set of at most the cap's members (about 100 bytes
 * each) and one short string for the gap; both expire on their own, so an address that goes quiet costs
 * nothing after its last lease or gap. Waiting is not fair between nodes (whoever asks first after a leave
 * wins); each node's own waiters wait at most their wait.
 */
import { randomUUID } from "node:crypto";
import type { AddressGate, AddressGateLimits, AddressGateState, AddressPass } from "../../core/ports/index.ts";
import type { RedisClient } from "./connect.ts";
import { ARRIVED_OP, addressGateBatchScript, ENTER_OP, inspectScript, LEAVE_OP } from "./address-gate-lua.ts";
import { type BatchedOp, TurnBatch } from "./turn-batch.ts";

/** How often a waiter asks again while the address is at its cap. */
const POLL_MS = 20;
/** How long a holder key lasts without being rewritten (see the module comment). */
const DEFAULT_HOLDER_TTL_MS = 10_000;

export interface RedisAddressGateOptions extends AddressGateLimits {
  /** How long a pass holds if never given back, and a request on its way holds back the next pass if never confirmed. */
  readonly leaseMs: number;
  /** Prefix of the keys (default "crawler:address"). */
  readonly keyPrefix?: string;
  /** Told of every pass given without asking Redis (it could not answer). */
  readonly onUnguarded?: (error: unknown) => void;
  /** How long this gate's passes outlive it when it stops beating (a node killed). Default 10 s. */
  readonly holderTtlMs?: number;
}

/** Most ops in one script call: a batch this long is sent at once (a node's concurrency bounds it anyway). */
const MAX_BATCH_OPS = 128;

/** An entry, arrival or leave waiting for its turn's batch (address-gate-lua.ts). */
export class RedisAddressGate implements AddressGate {
  readonly #holder = randomUUID();
  #passes = 0;
  #closed = false;
  readonly #sleepers = new Set<() => void>();
  /** Entries, arrivals and leaves of this turn, sent together when it ends (address-gate-lua.ts: one reply entry an op). */
  readonly #batch: TurnBatch<BatchedOp, number>;
  readonly #prefix: string;
  readonly #holderTtlMs: number;
  readonly #beat: ReturnType<typeof setInterval>;
  /**
   * Words to Redis that failed (an arrival, a leave: Redis was away), said again at the next beat that finds
   * it back. Redis restarted with its AOF has the passes and marks as they were, and nobody else would ever
   * clear them: each held its server until the lease (35 s; four hosts stalled 35 s in
   * `redis-killed-with-aof-mid-crawl`, where 10.3 s were allowed). At most one per pass out.
   */
  readonly #unsaid = new Set<() => Promise<unknown>>();

  /** Uses `client`, which the caller keeps and closes. */
  constructor(
    private readonly client: RedisClient,
    private readonly options: RedisAddressGateOptions,
  ) {
    if (!Number.isInteger(options.maxInFlight) || options.maxInFlight < 1) {
      throw new RangeError(`RedisAddressGate: maxInFlight must be a positive integer, got ${options.maxInFlight}`);
    }
    if (!(Number.isInteger(options.gapMs) && options.gapMs >= 0)) {
      throw new RangeError(`RedisAddressGate: gapMs must be a non-negative whole number, got ${options.gapMs}`);
    }
    if (!(Number.isInteger(options.leaseMs) && options.leaseMs >= 1)) {
      throw new RangeError(`RedisAddressGate: leaseMs must be a positive whole number, got ${options.leaseMs}`);
    }
    this.#prefix = options.keyPrefix ?? "crawler:address";
    this.#holderTtlMs = options.holderTtlMs ?? DEFAULT_HOLDER_TTL_MS;
    if (!(Number.isInteger(this.#holderTtlMs) && this.#holderTtlMs >= 100)) {
      throw new RangeError(`RedisAddressGate: holderTtlMs must be a whole number of at least 100, got ${this.#holderTtlMs}`);
    }
    this.#batch = new TurnBatch({
      maxOps: MAX_BATCH_OPS,
      headArgs: [`${this.#prefix}-holder:`, this.#holder, String(this.#holderTtlMs)],
      ready: () => client.isReady,
      send: (keys, args) => addressGateBatchScript.run<number[]>(client, keys, args),
      answerOf: (reply, i) => Number(reply[i]),
      downError: () => new Error("the Redis connection is down"),
      failure: (_op, error) => error,
    });
    // Alive while it runs, passes held or not; a beat that fails (Redis away) is the next one's to make good.
    const beat = (): void => {
      if (!this.client.isReady) return;
      this.client.sendCommand(["SET", this.#holderKey, "1", "PX", String(this.#holderTtlMs)]).catch(() => {});
      this.#sayAgain();
    };
    this.#beat = setInterval(beat, Math.floor(this.#holderTtlMs / 5));
    this.#beat.unref?.();
    beat();
    // The words Redis missed are said the moment it is back, not a beat later.
    this.client.on("ready", this.#onReady);
  }

  readonly #onReady = (): void => this.#sayAgain();

  #sayAgain(): void {
    if (!this.client.isReady) return;
    for (const word of this.#unsaid) {
      this.#unsaid.delete(word);
      this.#say(word);
    }
  }

  get #holderKey(): string {
    return `${this.#prefix}-holder:${this.#holder}`;
  }

  /**
   * The key's passes held now (not lapsed) and when its gap next allows one: one read-only script call (the
   * sorted set's live members and the gap key's time to live, on Redis's clock). Undefined when Redis cannot
   * answer. A dead holder's pass counts until the next entry drops it (at most its holder key's life).
   */
  inspect(key: string): Promise<AddressGateState | undefined> {
    // What this gate said this turn goes first: it reads its own leaves and entries.
    this.#batch.flush();
    return inspectAddressGate(this.client, key, this.#prefix);
  }

  async enter(key: string, waitMs: number, signal?: AbortSignal): Promise<AddressPass | undefined> {
    const askedAt = performance.now();
    const keys = [`${this.#prefix}:${key}`, `${this.#prefix}-last:${key}`, `${this.#prefix}-unconfirmed:${key}`];
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      if (this.#closed) return undefined;
      const member = `${this.#holder}:${this.#passes++}`;
      let answer: number;
      try {
        if (!this.client.isReady) throw new Error("the Redis connection is down");
        answer = await this.#batch.add({
          keys,
          args: [ENTER_OP, String(this.options.maxInFlight), String(this.options.gapMs), String(this.options.leaseMs), member],
        });
      } catch (error) {
        this.options.onUnguarded?.(error);
        return { waitedMs: performance.now() - askedAt, unguarded: true, arrived: () => {}, leave: () => {} };
      }
      if (answer === 0) return this.#pass(keys, member, askedAt);
      const left = waitMs - (performance.now() - askedAt);
      const sleepMs = answer > 0 ? answer : POLL_MS;
      if (sleepMs > left) return undefined;
      await this.#sleep(sleepMs, signal);
    }
  }

  /** Sends `word` to Redis; one that fails is kept to be said again once Redis answers (see `#unsaid`). */
  #say(word: () => Promise<unknown>): void {
    word().catch(() => {
      if (!this.#closed) this.#unsaid.add(word);
    });
  }

  close(): void {
    // What this turn said (a last leave) still goes.
    this.#batch.flush();
    this.#closed = true;
    // The holder key is left to expire: a pass still out (a request finishing) keeps its slot until then.
    clearInterval(this.#beat);
    this.client.off("ready", this.#onReady);
    for (const wake of this.#sleepers) wake();
  }

  #pass(keys: string[], member: string, askedAt: number): AddressPass {
    let arrived = false;
    let left = false;
    // A word that fails to reach Redis (it went away) is said again when it is back (`#unsaid`); one that
    // never gets there lapses with its lease: the cap is only lower meanwhile.
    const markArrived = (): void => {
      if (arrived) return;
      arrived = true;
      // Sent at once, not with the turn's batch: another node (and `url explain`) sees the arrival as soon as
      // Redis has it, as before the batching. A batch already waiting goes first, keeping the gate's order.
      this.#batch.flush();
      this.#say(() => this.#batch.add({ keys: [keys[1]!, keys[2]!], args: [ARRIVED_OP, String(this.options.gapMs), member] }, true));
    };
    return {
      waitedMs: performance.now() - askedAt,
      arrived: () => {
        if (!left) markArrived();
      },
      leave: () => {
        if (left) return;
        left = true;
        markArrived();
        this.#say(() => this.#batch.add({ keys: [keys[0]!], args: [LEAVE_OP, member] }));
      },
    };
  }

  #sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        this.#sleepers.delete(wake);
        signal?.removeEventListener("abort", onAbort);
      };
      const wake = (): void => {
        settle();
        resolve();
      };
      const onAbort = (): void => {
        settle();
        reject(signal?.reason);
      };
      const timer = setTimeout(wake, ms);
      this.#sleepers.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/**
 * A server's state in the region's gate, read without being a holder (a frontier node answering `url
 * explain`): the passes held now and when the gap allows the next, in one read-only script call. Undefined
 * when Redis cannot answer.
 */
export async function inspectAddressGate(
  client: RedisClient,
  key: string,
  prefix = "crawler:address",
): Promise<AddressGateState | undefined> {
  try {
    if (!client.isReady) return undefined;
    const [holders, gapLeftMs] = await inspectScript.run<[number, number]>(client, [`${prefix}:${key}`, `${prefix}-last:${key}`], []);
    return { holders: Number(holders), nextAllowedAt: Number(gapLeftMs) > 0 ? Date.now() + Number(gapLeftMs) : 0 };
  } catch {
    return undefined;
  }
}
