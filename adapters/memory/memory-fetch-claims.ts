/**
 * In-memory FetchClaims (core/ports/fetch-claims.ts): tests, and a fetch node without Redis, where the
 * claims then hold within this one process only (two fetch nodes of a region can each fetch one copy of a
 * task stored twice, or each take a delivery the bus repeated). A claim is forgotten once its time is up:
 * each call sweeps up to two expired ones from the oldest end, so with one TTL (a fetch node's) memory
 * stays at the claims of the last `ttlMs`.
 */
import type { FetchClaim, FetchClaims, TaskOwner } from "../../core/ports/index.ts";

export interface MemoryFetchClaimsOptions {
  /** Clock of the claims (their age and expiry). Default Date.now. */
  now?: () => number;
}

/** Claims looked at per sweep step: the sweep's cost is spread over the calls that cause it. */
const SWEEP_STEP = 2;

interface Held {
  /** The copy holding the task; undefined once it is done. */
  copy: number | undefined;
  since: number;
  until: number;
  /** Until when the copy's attempt said it holds the task's outputs (hold); 0: it never said so. */
  heldUntil: number;
}

export class MemoryFetchClaims implements FetchClaims {
  /** Task id -> claim, in the order set (so the oldest expire first, with one TTL). */
  private readonly claims = new Map<string, Held>();
  /** Partition -> the highest ownership epoch a task of it was claimed under (one number per partition). */
  private readonly ownerEpochs = new Map<number, number>();
  private readonly now: () => number;

  constructor(options: MemoryFetchClaimsOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  async claim(taskId: string, copy: number, ttlMs: number, owner?: TaskOwner): Promise<FetchClaim> {
    checkTtl(ttlMs);
    if (owner) {
      const floor = this.ownerEpochs.get(owner.partition) ?? 0;
      if (owner.epoch < floor) return { kind: "stale", ownerEpoch: floor };
      if (owner.epoch > floor) this.ownerEpochs.set(owner.partition, owner.epoch);
    }
    const now = this.now();
    this.sweep(now);
    const held = this.claims.get(taskId);
    if (held && held.until > now) {
      if (held.copy === undefined) return { kind: "done" };
      if (held.copy !== copy) return { kind: "other-copy" };
      if (held.heldUntil > now) return { kind: "held", forMs: held.heldUntil - now };
      return { kind: "again", ageMs: Math.max(0, now - held.since) };
    }
    this.set(taskId, { copy, since: now, until: now + ttlMs, heldUntil: 0 });
    return { kind: "new" };
  }

  async done(taskId: string, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    const now = this.now();
    this.sweep(now);
    this.set(taskId, { copy: undefined, since: now, until: now + ttlMs, heldUntil: 0 });
  }

  async hold(taskId: string, copy: number, forMs: number): Promise<void> {
    checkTtl(forMs);
    const now = this.now();
    const held = this.claims.get(taskId);
    if (held && held.until > now && held.copy === copy) held.heldUntil = now + forMs;
  }

  /** Claims held now (expired ones not swept yet included). */
  get size(): number {
    return this.claims.size;
  }

  async close(): Promise<void> {
    this.claims.clear();
    this.ownerEpochs.clear();
  }

  /** Deleted first, so a claim set again goes to the end of the insertion order. */
  private set(taskId: string, held: Held): void {
    this.claims.delete(taskId);
    this.claims.set(taskId, held);
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

function checkTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
}
