/**
 * In-memory FetchClaims (core/ports/fetch-claims.ts): tests, and a fetch node without Redis, where the
 * claims then hold within this one process only (two fetch nodes of a region can each fetch one copy of a
 * task stored twice). A claim is forgotten once its time is up: each new claim sweeps up to two expired
 * ones from the oldest end, so with one TTL (a fetch node's) memory stays at the claims of the last `ttlMs`.
 */
import type { FetchClaim, FetchClaims } from "../../core/ports/index.ts";

export interface MemoryFetchClaimsOptions {
  /** Clock for the claims' expiry. Default Date.now. */
  now?: () => number;
}

/** Claims looked at per sweep step: the sweep's cost is spread over the claims that cause it. */
const SWEEP_STEP = 2;

export class MemoryFetchClaims implements FetchClaims {
  /** Task id -> copy and expiry, in the order claimed (so the oldest expire first, roughly). */
  private readonly claims = new Map<string, { copy: number; until: number }>();
  private readonly now: () => number;

  constructor(options: MemoryFetchClaimsOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  async claim(taskId: string, copy: number, ttlMs: number): Promise<FetchClaim> {
    if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
    const now = this.now();
    this.sweep(now);
    const held = this.claims.get(taskId);
    if (held && held.until > now) return held.copy === copy ? "mine" : "other-copy";
    // Deleted first so a claim taken again goes to the end of the insertion order.
    this.claims.delete(taskId);
    this.claims.set(taskId, { copy, until: now + ttlMs });
    return "mine";
  }

  /** Claims held now (expired ones not swept yet included). */
  get size(): number {
    return this.claims.size;
  }

  async close(): Promise<void> {
    this.claims.clear();
  }

  /** Drops expired claims from the oldest end, a few per call (TTLs vary, so it stops at a live one). */
  private sweep(now: number): void {
    let n = 0;
    for (const [id, held] of this.claims) {
      if (held.until > now || n++ >= SWEEP_STEP) return;
      this.claims.delete(id);
    }
  }
}
