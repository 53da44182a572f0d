/**
 * The key gate: with `--politeness-key domain`, every host of one key shares one request at a time and one
 * gap, above each host's own politeness state (core/politeness/politeness-key.ts says what a key is). A
 * host is handed a task only when its key has nothing in flight, the key's next allowed time has passed,
 * and no other host of the key holds the key's turn; hosts of one key take turns in the order they asked
 * (round robin): a host turned away is parked behind the others, and when the key's fetch ends the first
 * parked host gets the turn and is woken for the key's next allowed time.
 *
 * The key's next allowed time after a fetch is the later of that host's (the gap rule, its Crawl-delay,
 * throttling: core/politeness fetch-end.ts) and the end of the fetch plus the largest Crawl-delay any host
 * of the key has reported, so the key's gap is the largest of its hosts' Crawl-delays and the gap rule.
 * robots.txt stays per host (each host fetches its own) and is a request to the key like any other.
 *
 * The gate is in memory only. After a restart or a handoff every host waits its last gap from then
 * (active-hosts.ts `load`), which covers each request any host of the key made before, so nothing is lost
 * by forgetting it. A turn not taken within TURN_MS (its host went cold, was paused, has nothing to do) lapses,
 * and a parked host asks again every PARK_RECHECK_MS, so no key can stall on a host that left.
 *
 * Cost: with `host` or `ip` keys the gate is never consulted and holds nothing (`FrontierKeys.shared` is
 * false): no entry, no lookup per host. With `domain` keys: one KeyState per key with work (about 130 bytes,
 * measured by bench/key-gate.bench.ts) plus, for a key with hosts parked, a Set with a slot each (about 55
 * bytes a parked host, the Set included); the domain of each host is memoized in a bounded map (core/scope DomainMemo). A key with
 * nothing in flight, nothing parked and its time passed is dropped at the next sweep.
 */
import { FrontierKeys } from "../../core/politeness/index.ts";
import type { FrontierState } from "./frontier-state.ts";
import type { HostEntry } from "./host-entry.ts";

/** How long a host given the key's turn has to take it, past the key's next allowed time. */
const TURN_MS = 1_000;
/** How often a parked host asks again by itself (it is normally woken when its turn comes). */
const PARK_RECHECK_MS = 5_000;
/** Keys are swept of idle entries at most this often. */
const SWEEP_MS = 10_000;

interface KeyState {
  /** The host with the key's fetch in flight. */
  holder: string | undefined;
  /** The earliest time the key's next request may start. */
  nextAllowedAt: number;
  /** The largest Crawl-delay reported by a host of the key (already capped). */
  crawlDelayMs: number;
  /** The host whose turn it is, and until when it may take it. */
  turn: string | undefined;
  turnUntil: number;
  /** Hosts turned away, in the order they asked (a Set keeps insertion order); made when first needed. */
  parked: Set<string> | undefined;
}

export class KeyGate {
  readonly keys: FrontierKeys;
  private readonly states = new Map<string, KeyState>();
  private sweptAt = 0;

  constructor(private readonly s: FrontierState) {
    this.keys = new FrontierKeys(s.policy.politenessKey ?? "host");
  }

  /** Keys held in memory (for tests and the memory bench). */
  get size(): number {
    return this.states.size;
  }

  /**
   * Whether `entry`'s host may start a request now as far as its key goes; when not, the host is parked
   * behind the key's other hosts and asked again when its turn comes. Always true with unshared keys.
   */
  mayStart(entry: HostEntry, now: number): boolean {
    if (!this.keys.shared) return true;
    const k = this.stateOf(this.keys.of(entry.key));
    const host = entry.key;
    if (k.holder !== undefined && k.holder !== host && this.s.hosts.get(k.holder)?.inFlight === undefined) k.holder = undefined;
    if (k.turn !== undefined && now >= k.turnUntil) k.turn = undefined;
    if (k.holder === undefined && now >= k.nextAllowedAt && (k.turn === undefined || k.turn === host)) return true;
    if (k.holder === undefined && k.turn === undefined) {
      // The key is free but not yet due: this host takes the turn and comes back at the key's time.
      this.giveTurn(k, host);
      return false;
    }
    (k.parked ??= new Set()).add(host);
    this.s.waiting.push(host, now + PARK_RECHECK_MS);
    return false;
  }

  /** `entry`'s host started a request: it holds its key until the request ends (`ended`). */
  started(entry: HostEntry): void {
    if (!this.keys.shared) return;
    const k = this.stateOf(this.keys.of(entry.key));
    k.holder = entry.key;
    k.parked?.delete(entry.key);
    if (k.turn === entry.key) k.turn = undefined;
  }

  /**
   * `entry`'s request ended at `endedAt` (or was given up) and its host state moved on: the key may be asked
   * again at the later of the host's next allowed time and the end plus the key's largest Crawl-delay, and
   * the first parked host gets the turn.
   */
  ended(entry: HostEntry, endedAt: number): void {
    if (!this.keys.shared) return;
    const k = this.states.get(this.keys.of(entry.key));
    if (!k) return;
    const policy = this.s.policy;
    k.crawlDelayMs = Math.max(k.crawlDelayMs, Math.min(entry.state.crawlDelayMs, policy.crawlDelayCapMs));
    const byDelay = k.crawlDelayMs > 0 ? endedAt + k.crawlDelayMs + policy.gapMarginMs : 0;
    k.nextAllowedAt = Math.max(k.nextAllowedAt, entry.state.nextAllowedAt, byDelay);
    if (k.holder === entry.key) k.holder = undefined;
    // A late result (redelivered, its host no longer in flight) moves the time on, but the key may be held by
    // another host now: the turn passes when that one ends.
    if (k.holder !== undefined && this.s.hosts.get(k.holder)?.inFlight !== undefined) return;
    // Likewise a turn already given stands (it lapses by itself if not taken).
    if (k.turn !== undefined && this.s.now() < k.turnUntil) return;
    const next = k.parked?.values().next();
    if (next && !next.done) {
      k.parked!.delete(next.value);
      this.giveTurn(k, next.value);
    }
    this.sweep(this.s.now());
  }

  private giveTurn(k: KeyState, host: string): void {
    k.turn = host;
    k.turnUntil = k.nextAllowedAt + TURN_MS;
    this.s.waiting.push(host, k.nextAllowedAt);
  }

  private stateOf(key: string): KeyState {
    let k = this.states.get(key);
    if (!k) {
      k = { holder: undefined, nextAllowedAt: 0, crawlDelayMs: 0, turn: undefined, turnUntil: 0, parked: undefined };
      this.states.set(key, k);
    }
    return k;
  }

  /** Drops keys with nothing in flight, nothing parked and their time passed (they would start afresh). */
  private sweep(now: number): void {
    if (now - this.sweptAt < SWEEP_MS) return;
    this.sweptAt = now;
    for (const [key, k] of this.states) {
      if (k.holder === undefined && !k.parked?.size && k.turn === undefined && k.nextAllowedAt <= now) this.states.delete(key);
    }
  }
}
