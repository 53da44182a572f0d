/**
 * The SeenSet port: "have we admitted this URL before?" for the frontier, answered by a Bloom filter. In
 * embedded mode it is an in-process filter saved to disk (local-bloom-seen-set.ts); in cluster mode the
 * region's Redis holds one filter per partition, so a partition's seen-set survives its owner moving.
 *
 * Contract:
 *  - `checkAndAdd(keys)` returns, for each key in order, `true` when the key may have been added before
 *    (a Bloom "maybe": rarely wrong, see the false-positive rate) and `false` when it certainly was not;
 *    after the call every key is added. A key repeated in one call reports `true` for its later copies.
 *  - It never returns `false` for a key that was added before (no false negatives), even after a restart.
 *  - `close()` releases resources; the caller that built the set closes it.
 */
export interface SeenSet {
  checkAndAdd(partition: number, keys: readonly string[]): Promise<boolean[]>;
  close(): Promise<void>;
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
