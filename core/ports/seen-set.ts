/**
 * The SeenSet port: "have we admitted this URL before?" for the frontier, answered by a Bloom filter. In
 * embedded mode it is an in-process filter saved to disk (adapters/memory, LocalBloomSeenSet); in cluster
 * mode the region's Redis holds one filter per partition (adapters/redis), so a partition's seen-set
 * survives its owner moving.
 *
 * Contract:
 *  - `checkAndAdd(keys)` returns, for each key in order, `true` when the key may have been added before
 *    (a Bloom "maybe": rarely wrong, see the false-positive rate) and `false` when it certainly was not;
 *    after the call every key is added. A key repeated in one call reports `true` for its later copies.
 *  - It never returns `false` for a key that was added before (no false negatives), even after a restart.
 *  - A set kept in a cache (Redis) can lose what it held: restarted empty, or failed over to a replica
 *    that lagged. Such a set never answers "not seen" from a partition that may have lost keys: it
 *    rejects `checkAndAdd` for that partition with `SeenSetLostError` and adds nothing, until the caller
 *    has called `rebuild(p, keys)` with every key it knows of p (its exact store). (A call whose keys
 *    the client itself added before may be answered "seen" without asking the cache, which is what it
 *    held; the loss is then reported by the next call that asks.) A partition the set
 *    has never been built for is rejected the same way (it cannot tell "new" from "emptied"); rebuilding
 *    it from no keys starts it. A set that cannot lose keys (in-process, saved to disk) has no `rebuild`
 *    and never rejects so.
 *  - `probe(p)` (optional, with `rebuild`): resolves when partition p can answer `checkAndAdd` now (like
 *    a first call, it adopts what the set holds), adding nothing; rejects with `SeenSetLostError` when it
 *    cannot (never built, lost, being rebuilt). A caller that starts serving p probes it so a rebuild it
 *    needs is done before the first URL of p arrives, rather than failing that URL's admission.
 *  - `release(p)` (optional): the caller stops using partition p (another node owns it now); a set that
 *    remembers per-partition state forgets it.
 *  - `close()` releases resources; the caller that built the set closes it.
 */
export interface SeenSet {
  checkAndAdd(partition: number, keys: readonly string[]): Promise<boolean[]>;
  /**
   * Adds `keys` (every key the caller knows of partition p, in batches) to p's filter and lets p answer
   * again. Calls for p made meanwhile are still rejected. Rejects with `SeenSetLostError` when the set lost
   * keys again during the rebuild (start over).
   */
  rebuild?(partition: number, keys: AsyncIterable<readonly string[]> | Iterable<readonly string[]>): Promise<number>;
  probe?(partition: number): Promise<void>;
  release?(partition: number): void;
  close(): Promise<void>;
}

/** Why a partition of a seen-set cannot answer: see `SeenSetLostError`. */
export type SeenLossReason =
  /** No filter for the partition: never built, or the cache restarted empty. */
  | "missing"
  /** The cache holds fewer changes than were confirmed to this client: it failed over to a replica that lagged, or restarted from an old snapshot. */
  | "lagging"
  /** The filter was rebuilt by another client since this one last used it. */
  | "changed"
  /** A rebuild of the partition is under way (this client's or another's). */
  | "rebuilding"
  /** The filter was written by another Redis process: loaded from disk (its writes are kept out of the AOF) or a promoted replica. */
  | "restarted";

/**
 * The seen-set cannot vouch for partition `partition`: it may have lost keys. Reaction: retry later, after
 * rebuilding the partition from the exact store (`SeenSet.rebuild`); nothing was added.
 */
export class SeenSetLostError extends Error {
  override readonly name = "SeenSetLostError";
  constructor(
    readonly partition: number,
    readonly reason: SeenLossReason,
    message?: string,
  ) {
    super(message ?? `the seen-set of partition ${partition} cannot vouch for its keys (${reason}); it must be rebuilt from the store`);
  }
}

/**
 * The frontier store's log of admitted URLs, as a local seen-set needs it to stay free of false negatives
 * across an unclean stop: replay what was admitted after its last snapshot, then let the log be trimmed.
 * Contract: ids grow with each admission; `urlsSince(id, limit)` returns admissions with a larger id in id
 * order; `trimRecent(id)` forgets admissions up to `id` (they are in a snapshot).
 */
export interface AdmissionLog {
  urlsSince(afterId: number, limit: number): Array<{ id: number; url: string }>;
  maxUrlId(): number;
  trimRecent(uptoId: number): void;
}
