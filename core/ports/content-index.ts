/**
 * The ContentIndex port: which page already has this content? Exact duplicates are found by the content
 * fingerprint, near duplicates by SimHash (Hamming distance <= 3). In cluster mode the region's Redis holds
 * it, shared by every fetch node of the region; in embedded mode it is local (memory-content-index.ts,
 * or the SQLite-backed one of the embedded crawler).
 *
 * Contract:
 *  - `claimExact(fp, url)` records `url` as having content `fp` when no URL has it yet, and returns the URL
 *    that had it first when that is another URL; `undefined` means "new content, or this URL's own". It is
 *    idempotent: calling it again for the same pair returns the same answer.
 *  - `claimNear(hash, url)` returns another URL whose SimHash is within 3 bits, if any, then records this one.
 *  - `close()` releases resources; the caller that built the index closes it.
 */
export interface ContentIndex {
  claimExact(fingerprint: string, url: string): Promise<string | undefined>;
  claimNear(simhash: bigint, url: string): Promise<string | undefined>;
  close(): Promise<void>;
}
