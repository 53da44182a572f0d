/**
 * The AddressGate port: the cap per server address. One machine often answers for many host names (a
 * shared-hosting address serves thousands of sites, a blog platform thousands of subdomains), and a crawl
 * polite to each name can still send a crowd of requests to that one machine. So before a request, the fetch
 * path enters the gate for the request's server (its resolved IP address, or, through a proxy that resolves
 * names itself, its host's registrable domain), and leaves it when the response has ended.
 *
 * In `crawl` one gate in the main thread serves every fetch thread (adapters/memory); in the cluster the
 * region's Redis holds it, shared by every fetch node of the region (adapters/redis).
 *
 * Contract:
 *  - `enter(key, waitMs, signal)` resolves with a pass once fewer than `maxInFlight` passes of `key` are
 *    held, the request of every pass of `key` given before has surely reached the server, and at least
 *    `gapMs` has passed since the last of them did (the two limits the gate was built with); waiters of one
 *    key in one process are served in order. The gap runs from the arrival, not from the pass: a pass reaches
 *    its request after a delay that differs from one holder to the next (a busy fetch thread, a farther
 *    fetch node), and a request written to a socket leaves the process when its event loop next gets to it,
 *    so a gap counted from the passes, or from the writes, lets two requests reach the server closer than
 *    it (seen: 0.1-14 ms apart under a 15 ms gap, with fetch nodes under load). The first byte of the answer
 *    is the first moment the holder knows the server had the request. It resolves
 *    `undefined` when no pass came within `waitMs` (the request is then not made: its task goes back to its
 *    host's queue, the host not blamed), and rejects with the signal's reason when `signal` aborts first.
 *  - `pass.arrived()` says the request surely reached the server (its answer began); a pass left before
 *    that counts as arrived when it is left. Calling it again does nothing.
 *  - `pass.leave()` gives the pass back; calling it again does nothing. A pass that is never given back
 *    (its holder killed) lapses after the gate's lease time in a shared gate, so a killed process cannot
 *    hold a slot for ever; the cap can then only be lower than asked for, never higher, until it lapses.
 *  - A gate that cannot answer (its store unreachable) resolves a pass at once rather than stop the crawl
 *    (`pass.unguarded` is then true): each host's own politeness still holds, and the gate is a second,
 *    coarser limit above it.
 *  - `close()` turns every waiter away (resolves them `undefined`).
 *  - `inspect(key)` (optional; for `url explain`) reads the key's state without changing it: the passes
 *    held now and when the next may be given by the gap (epoch ms; 0: now). Undefined when the gate cannot
 *    say (its store unreachable). A key nobody asked for lately has no passes and no gap to wait.
 */
export interface AddressGate {
  enter(key: string, waitMs: number, signal?: AbortSignal): Promise<AddressPass | undefined>;
  inspect?(key: string): Promise<AddressGateState | undefined>;
  close(): void | Promise<void>;
}

/** A key's state in its gate, as `inspect` reads it. */
export interface AddressGateState {
  /** Passes held now (requests in flight to the server). */
  readonly holders: number;
  /** When the gap allows the next pass, epoch ms; 0 when it allows one now (a holder at the cap still may not). */
  readonly nextAllowedAt: number;
}

export interface AddressPass {
  /** How long the caller waited for the pass, in ms. */
  readonly waitedMs: number;
  /** True when the gate could not be asked and let the request through unguarded. */
  readonly unguarded?: boolean;
  /** The request surely reached the server (its answer began): the gap to the next pass of its key runs from now. */
  arrived(): void;
  leave(): void;
}

/** The gate's two limits. */
export interface AddressGateLimits {
  /** Passes of one key held at once at most. */
  readonly maxInFlight: number;
  /** Least time between two passes of one key, in ms. */
  readonly gapMs: number;
}
