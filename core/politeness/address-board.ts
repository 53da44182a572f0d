/**
 * The per-address view of the cap per server address (core/ports AddressGate): for each server (`ip:…`, or
 * `domain:…` through a proxy) the passes its gate gave, how many of them had to wait, how many requests
 * were given back when no pass came within the wait, and the longest wait, for the dashboard's host board.
 * A request given back is counted there alone, not among the waits: `waits` never exceeds `passes`, and
 * passes + givenBack is every request that asked.
 * It is fed where the passes are taken (`crawl`'s main thread, each fetch node), by CountingAddressGate.
 *
 * Bounded, whatever the number of servers: at most `capacity` rows. A row whose server has been quiet for
 * `idleMs` is dropped (looked at a few rows per call, from the least recently active); when the board is
 * full, a new server takes the place of the least busy (fewest waits, then fewest passes) among the few
 * least recently active rows. A server that keeps waiting is touched often and stays; ten million hosts on
 * a million addresses churn through the quiet end only. The figures of a row count from when it was
 * (re)made, and say so (`since`).
 *
 * Cost (bench/address-board.bench.ts): ~165 B a row (the key, six numbers, a Map entry), 163 KiB for a full
 * board of 1,000; a pass noted in 0.2 µs (0.6 µs when every pass is a new server evicting another): a Map
 * delete and set, at most SAMPLE rows looked at on eviction, SWEEP on expiry. `top` sorts the rows (0.13 ms
 * for a full board), for a heartbeat or a page view, not per request.
 */

/** One server's figures on the board. */
export interface AddressRow {
  /** `ip:<address>`, or `domain:<registrable domain>` through a proxy. */
  server: string;
  passes: number;
  /** Passes that had to wait (the server at its cap, or within its gap); never more than `passes`. */
  waits: number;
  /** Requests that got no pass within the wait and were given back unsent (not among `waits`). */
  givenBack: number;
  /** The longest wait, of a pass or of a request given back. */
  longestWaitMs: number;
  /** When the row began counting, and when its server last asked (epoch ms). */
  since: number;
  lastAt: number;
}

export interface AddressBoardOptions {
  /** Rows kept at most (default 1,000). */
  capacity?: number;
  /** A row quiet this long is dropped (default 10 min). */
  idleMs?: number;
  /** Wall clock, epoch ms (default Date.now). */
  now?: () => number;
}

/** Rows each process reports of its board (node record, dashboard): its busiest servers. */
export const ADDRESS_BOARD_ROWS = 20;

/** Least recently active rows looked at to choose the one a new server replaces. */
const SAMPLE = 8;
/** Least recently active rows looked at per call for expiry. */
const SWEEP = 2;

export class AddressBoard {
  readonly #capacity: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  /** Server -> row, in order of last activity (least recent first): each touch moves a row to the end. */
  readonly #rows = new Map<string, AddressRow>();

  constructor(opts: AddressBoardOptions = {}) {
    this.#capacity = Math.max(1, opts.capacity ?? 1_000);
    this.#idleMs = opts.idleMs ?? 10 * 60_000;
    this.#now = opts.now ?? Date.now;
  }

  /** Rows kept now. */
  get size(): number {
    return this.#rows.size;
  }

  /** A pass was given to a request to `server` after `waitedMs`. */
  passed(server: string, waitedMs: number): void {
    const row = this.#touch(server);
    row.passes++;
    this.#waited(row, waitedMs);
  }

  /** No pass of `server` came within `waitedMs`: the request was given back, not made. */
  gaveUp(server: string, waitedMs: number): void {
    const row = this.#touch(server);
    row.givenBack++;
    // Counted as given back only: a wait is a pass that came late, so waits stay a part of passes.
    row.longestWaitMs = Math.max(row.longestWaitMs, Math.round(waitedMs));
  }

  /** The busiest `n` servers still active within `idleMs`: most waits first, then most given back, then most passes. */
  top(n: number): AddressRow[] {
    const now = this.#now();
    const live: AddressRow[] = [];
    for (const row of this.#rows.values()) if (now - row.lastAt < this.#idleMs) live.push({ ...row });
    live.sort((a, b) => b.waits - a.waits || b.givenBack - a.givenBack || b.passes - a.passes || (a.server < b.server ? -1 : 1));
    return live.slice(0, Math.max(0, n));
  }

  /** The row of one server, if the board holds it (for `url explain`). */
  get(server: string): AddressRow | undefined {
    const row = this.#rows.get(server);
    return row && this.#now() - row.lastAt < this.#idleMs ? { ...row } : undefined;
  }

  #waited(row: AddressRow, waitedMs: number): void {
    // A pass taken at once still costs a few microseconds; below half a millisecond is no wait (as the counters judge).
    const ms = Math.round(waitedMs);
    if (ms <= 0) return;
    row.waits++;
    if (ms > row.longestWaitMs) row.longestWaitMs = ms;
  }

  #touch(server: string): AddressRow {
    const now = this.#now();
    this.#expire(now);
    let row = this.#rows.get(server);
    if (row) this.#rows.delete(server);
    else {
      if (this.#rows.size >= this.#capacity) this.#evict();
      row = { server, passes: 0, waits: 0, givenBack: 0, longestWaitMs: 0, since: now, lastAt: now };
    }
    row.lastAt = now;
    this.#rows.set(server, row);
    return row;
  }

  /** Drops up to SWEEP of the least recently active rows if they have been quiet for idleMs. */
  #expire(now: number): void {
    for (let i = 0; i < SWEEP; i++) {
      const oldest = this.#rows.values().next();
      if (oldest.done || now - oldest.value.lastAt < this.#idleMs) return;
      this.#rows.delete(oldest.value.server);
    }
  }

  /** Makes room: the least busy of the SAMPLE least recently active rows goes. */
  #evict(): void {
    let victim: AddressRow | undefined;
    let looked = 0;
    for (const row of this.#rows.values()) {
      if (
        !victim ||
        row.waits + row.givenBack < victim.waits + victim.givenBack ||
        (row.waits + row.givenBack === victim.waits + victim.givenBack && row.passes < victim.passes)
      ) {
        victim = row;
      }
      if (++looked >= SAMPLE) break;
    }
    if (victim) this.#rows.delete(victim.server);
  }
}
