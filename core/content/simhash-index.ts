/**
 * Finds a stored SimHash within a few bits of a new one without scanning them all (Manku, Jain and Das
 * Sarma, "Detecting near-duplicates for web crawling", 2007). The 64 bits are cut into four 16-bit
 * blocks; two fingerprints differing in at most 3 bits leave at least one block untouched (pigeonhole),
 * so a lookup only compares against the fingerprints sharing one of its four blocks exactly: about
 * 4 n / 65536 candidates. That is why the distance is capped at 3. Fingerprints are held as two uint32
 * arrays, bigints only at the API edge.
 */
import { popcount32, toParts } from "./hamming.ts";

/** Largest distance the four-block index can answer without missing a match. */
export const MAX_INDEXED_DISTANCE = 3;

export interface NearMatch {
  id: string;
  distance: number;
}

export class SimHashIndex {
  private his: Uint32Array = new Uint32Array(1024);
  private los: Uint32Array = new Uint32Array(1024);
  private readonly ids: string[] = [];
  /** blocks[j][v]: entries whose block j (0 = top 16 bits) equals v. */
  private readonly blocks: (number[] | undefined)[][] = [[], [], [], []];

  /** Number of fingerprints stored. */
  get size(): number {
    return this.ids.length;
  }

  /** Stores `hash` under `id`. Adding the same pair twice stores it twice (lookups are unaffected). */
  add(hash: bigint, id: string): void {
    const [hi, lo] = toParts(hash);
    const at = this.ids.length;
    if (at === this.his.length) {
      this.his = grow(this.his);
      this.los = grow(this.los);
    }
    this.his[at] = hi;
    this.los[at] = lo;
    this.ids.push(id);
    const keys = [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff];
    for (let j = 0; j < 4; j++) {
      const table = this.blocks[j]!;
      const key = keys[j]!;
      const bucket = table[key];
      if (bucket === undefined) table[key] = [at];
      else bucket.push(at);
    }
  }

  /**
   * The stored fingerprint closest to `hash` if it is within `maxDistance` bits (0..3), the earliest
   * added on a tie; `undefined` when none is that close.
   */
  findNear(hash: bigint, maxDistance = MAX_INDEXED_DISTANCE): NearMatch | undefined {
    if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > MAX_INDEXED_DISTANCE) {
      throw new RangeError(`maxDistance must be an integer in [0, ${MAX_INDEXED_DISTANCE}], got ${maxDistance}`);
    }
    const [hi, lo] = toParts(hash);
    const his = this.his;
    const los = this.los;
    let best = -1;
    let bestDistance = maxDistance + 1;
    const keys = [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff];
    for (let j = 0; j < 4; j++) {
      const bucket = this.blocks[j]![keys[j]!];
      if (bucket === undefined) continue;
      for (let b = 0; b < bucket.length; b++) {
        const at = bucket[b]!;
        const d = popcount32(his[at]! ^ hi) + popcount32(los[at]! ^ lo);
        if (d < bestDistance || (d === bestDistance && at < best)) {
          best = at;
          bestDistance = d;
        }
      }
      // Every exact copy sits in every block's bucket, so one full bucket has seen the earliest of them.
      if (bestDistance === 0) break;
    }
    return best < 0 ? undefined : { id: this.ids[best]!, distance: bestDistance };
  }
}

function grow(a: Uint32Array): Uint32Array {
  const bigger = new Uint32Array(a.length * 2);
  bigger.set(a);
  return bigger;
}
