/**
 * The in-process SeenSet of embedded mode: one growing Bloom filter (core/seen) for all partitions, saved
 * to a file now and then. The file records which admitted URL (by its id in the frontier store) the
 * snapshot covers; on open the frontier replays URLs admitted after that id, so a kill between two
 * snapshots loses no seen URL. Writes go to a temporary file renamed over the old one, so a crash during
 * a save leaves the previous snapshot intact.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { ScalableBloomFilter } from "../../core/seen/index.ts";
import type { AdmissionLog, SeenSet } from "../../core/ports/index.ts";

const MAGIC = 0x5345454e; // "SEEN"

export class LocalBloomSeenSet implements SeenSet {
  private constructor(
    private readonly filter: ScalableBloomFilter,
    private readonly path: string | undefined,
    /** Highest frontier URL id the loaded snapshot covered. */
    readonly coveredUrlId: number,
  ) {}

  /** Loads the snapshot at `path` when present, else starts an empty filter for `initialCapacity` keys. */
  static open(path: string | undefined, initialCapacity = 1_000_000): LocalBloomSeenSet {
    if (path && existsSync(path)) {
      const bytes = new Uint8Array(readFileSync(path));
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (bytes.byteLength < 12 || view.getUint32(0) !== MAGIC) {
        throw new Error(`seen-set snapshot ${path} is not a snapshot file; move it away to rebuild from the store`);
      }
      const covered = Number(view.getBigUint64(4));
      const filter = ScalableBloomFilter.fromBytes(bytes.subarray(12));
      return new LocalBloomSeenSet(filter, path, covered);
    }
    return new LocalBloomSeenSet(new ScalableBloomFilter({ initialCapacity }), path, 0);
  }

  /**
   * Opens the snapshot at `path` and replays into it every URL the store admitted after the snapshot was
   * taken (an unclean stop), so the filter has no false negatives. The store must log admissions
   * (`FrontierStore.open(path, { recentLog: true })`).
   */
  static openReplaying(path: string, store: Pick<AdmissionLog, "urlsSince">, initialCapacity?: number): LocalBloomSeenSet {
    const seen = LocalBloomSeenSet.open(path, initialCapacity);
    for (let batch = store.urlsSince(seen.coveredUrlId, 50_000); batch.length > 0; batch = store.urlsSince(batch.at(-1)!.id, 50_000)) {
      seen.addKnown(batch.map((r) => r.url));
    }
    return seen;
  }

  /** Saves a snapshot covering everything the store admitted so far, then lets the store forget its log. */
  checkpoint(store: Pick<AdmissionLog, "maxUrlId" | "trimRecent">): void {
    const id = store.maxUrlId();
    this.save(id);
    store.trimRecent(id);
  }

  async checkAndAdd(_partition: number, keys: readonly string[]): Promise<boolean[]> {
    return keys.map((k) => this.filter.add(k));
  }

  /** Adds keys known to be admitted (the replay after an unclean stop). */
  addKnown(keys: readonly string[]): void {
    for (const k of keys) this.filter.add(k);
  }

  get count(): number {
    return this.filter.count;
  }

  estimatedFalsePositiveRate(): number {
    return this.filter.estimatedFalsePositiveRate();
  }

  /** Writes the snapshot, recording that it covers admitted URLs up to `coveredUrlId`. */
  save(coveredUrlId: number): void {
    if (!this.path) return;
    const body = this.filter.toBytes();
    const out = new Uint8Array(12 + body.byteLength);
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC);
    view.setBigUint64(4, BigInt(coveredUrlId));
    out.set(body, 12);
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, out);
    renameSync(tmp, this.path);
  }

  async close(): Promise<void> {}
}
