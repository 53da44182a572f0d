/**
 * A Bloom filter that grows before it fills (Almeida et al., "Scalable Bloom Filters", 2007): the seen-set
 * of a crawl whose size nobody knows in advance. It is a list of plain `BloomFilter` slices; only the
 * newest takes new keys. A new slice, with `growth` times the capacity and `tightening` times the
 * false-positive target of the previous one, starts when the newest holds its planned count or when its
 * actual fill already gives its target rate (small slices vary a lot around the average). Slice i targets
 * p0 * r^i with p0 = bound * (1 - r), so the compound rate, at most the sum of the slices' rates, stays
 * under `bound` however many slices are added. `add` checks every slice (a key in an old slice is still
 * seen) and hashes the key once for all of them. A slice may not exceed `MAX_BLOOM_BITS` (512 MB);
 * once the plan would, slices keep that size and take fewer keys each (still at their tighter rate), so
 * the bound holds and memory grows linearly instead of failing (with the defaults and 1M initial keys
 * that happens past about 250M keys).
 */
import { hash64pairInto } from "../hash/index.ts";
import { BloomFilter } from "./bloom-filter.ts";
import { CorruptFilterError, expectTag, setTag } from "./codec.ts";
import { MAX_BLOOM_BITS } from "./bit-positions.ts";
import { bloomShapeWithin } from "./sizing.ts";

export interface ScalableBloomFilterOptions {
  /** Planned number of keys of the first slice. */
  initialCapacity: number;
  /** Bound on the compound false-positive rate, whatever the growth (default 0.01). */
  falsePositiveBound?: number;
  /** Capacity ratio between consecutive slices (default 2). */
  growth?: number;
  /** False-positive ratio between consecutive slices, in (0, 1) (default 0.5). */
  tightening?: number;
}

export interface SliceInfo {
  capacity: number;
  count: number;
  bits: number;
  hashes: number;
  targetFalsePositiveRate: number;
  estimatedFalsePositiveRate: number;
}

const TAG = "SBLM";
const VERSION = 1;
/** tag(4) version(1) reserved(3) bound(8) growth(8) tightening(8) initialCapacity(8) slices(4) reserved(4). */
const HEADER_BYTES = 48;

export class ScalableBloomFilter {
  readonly falsePositiveBound: number;
  readonly growth: number;
  readonly tightening: number;
  readonly initialCapacity: number;
  private readonly slices: BloomFilter[] = [];
  private readonly lanes = new Uint32Array(2);
  /** Set bits at which the newest slice's fill-based rate, (ones / m)^k, reaches its target. */
  private lastSliceMaxOnes = 0;

  constructor(options: ScalableBloomFilterOptions) {
    const { initialCapacity, falsePositiveBound = 0.01, growth = 2, tightening = 0.5 } = options;
    if (!Number.isInteger(initialCapacity) || initialCapacity < 1) {
      throw new RangeError(`initialCapacity must be a positive integer, got ${initialCapacity}`);
    }
    if (!(falsePositiveBound > 0 && falsePositiveBound < 1)) {
      throw new RangeError(`falsePositiveBound must be in (0, 1), got ${falsePositiveBound}`);
    }
    if (!(growth >= 1)) throw new RangeError(`growth must be >= 1, got ${growth}`);
    if (!(tightening > 0 && tightening < 1)) throw new RangeError(`tightening must be in (0, 1), got ${tightening}`);
    this.initialCapacity = initialCapacity;
    this.falsePositiveBound = falsePositiveBound;
    this.growth = growth;
    this.tightening = tightening;
  }

  /** Number of keys added (sum over slices). */
  get count(): number {
    let n = 0;
    for (const s of this.slices) n += s.count;
    return n;
  }

  /** Number of slices so far (0 until the first add). */
  get sliceCount(): number {
    return this.slices.length;
  }

  /** Total planned capacity of the slices so far. */
  get capacity(): number {
    let n = 0;
    for (const s of this.slices) n += s.capacity;
    return n;
  }

  /** Total size of the slices in bits. */
  get bits(): number {
    let n = 0;
    for (const s of this.slices) n += s.bits;
    return n;
  }

  /** Planned capacity and false-positive target of slice `i`. */
  sliceTarget(i: number): { capacity: number; falsePositiveRate: number } {
    return {
      capacity: Math.ceil(this.initialCapacity * Math.pow(this.growth, i)),
      falsePositiveRate: this.falsePositiveBound * (1 - this.tightening) * Math.pow(this.tightening, i),
    };
  }

  /**
   * Adds `key` and returns whether it was (maybe) present before, in any slice; `false` means certainly
   * new. A present key is not added again, so counts track distinct keys.
   */
  add(key: string): boolean {
    hash64pairInto(key, this.lanes);
    const h1 = this.lanes[0]!;
    const h2 = this.lanes[1]!;
    for (const s of this.slices) if (s.hasHashed(h1, h2)) return true;
    let last = this.slices[this.slices.length - 1];
    if (last === undefined || last.count >= last.capacity || last.setBits >= this.lastSliceMaxOnes) last = this.addSlice();
    last.addHashed(h1, h2);
    return false;
  }

  /** Whether `key` is (maybe) present in any slice; `false` means it was certainly never added. */
  has(key: string): boolean {
    hash64pairInto(key, this.lanes);
    const h1 = this.lanes[0]!;
    const h2 = this.lanes[1]!;
    for (const s of this.slices) if (s.hasHashed(h1, h2)) return true;
    return false;
  }

  /** Per-slice figures, oldest first, for metrics and for checking the growth plan. */
  describeSlices(): SliceInfo[] {
    return this.slices.map((s, i) => ({
      capacity: s.capacity,
      count: s.count,
      bits: s.bits,
      hashes: s.hashes,
      targetFalsePositiveRate: this.sliceTarget(i).falsePositiveRate,
      estimatedFalsePositiveRate: s.estimatedFalsePositiveRate(),
    }));
  }

  /** Compound false-positive rate now, 1 - prod(1 - p_i), from each slice's actual fill. */
  estimatedFalsePositiveRate(): number {
    let miss = 1;
    for (const s of this.slices) miss *= 1 - s.estimatedFalsePositiveRate();
    return 1 - miss;
  }

  private addSlice(): BloomFilter {
    const target = this.sliceTarget(this.slices.length);
    const shape = bloomShapeWithin(target.capacity, target.falsePositiveRate, MAX_BLOOM_BITS);
    const slice = new BloomFilter(shape);
    this.slices.push(slice);
    this.lastSliceMaxOnes = this.maxOnes(slice, this.slices.length - 1);
    return slice;
  }

  /** Less one add's worth of bits (k), so the add that crosses the line cannot overshoot the target. */
  private maxOnes(slice: BloomFilter, index: number): number {
    return Math.floor(slice.bits * Math.pow(this.sliceTarget(index).falsePositiveRate, 1 / slice.hashes)) - slice.hashes;
  }

  /**
   * Versioned binary form: a 48-byte little-endian header (tag "SBLM", version, bound, growth,
   * tightening, initial capacity, slice count), then each slice as a uint32 length and its
   * `BloomFilter.toBytes()` (which carries its own checksum).
   */
  toBytes(): Uint8Array {
    const parts = this.slices.map((s) => s.toBytes());
    const total = HEADER_BYTES + parts.reduce((n, p) => n + 4 + p.length, 0);
    const out = new Uint8Array(total);
    const view = new DataView(out.buffer);
    setTag(out, 0, TAG);
    out[4] = VERSION;
    view.setFloat64(8, this.falsePositiveBound, true);
    view.setFloat64(16, this.growth, true);
    view.setFloat64(24, this.tightening, true);
    view.setFloat64(32, this.initialCapacity, true);
    view.setUint32(40, parts.length, true);
    let at = HEADER_BYTES;
    for (const p of parts) {
      view.setUint32(at, p.length, true);
      out.set(p, at + 4);
      at += 4 + p.length;
    }
    return out;
  }

  /** Rebuilds a filter saved by `toBytes`; throws `CorruptFilterError` on anything that does not check out. */
  static fromBytes(bytes: Uint8Array): ScalableBloomFilter {
    if (bytes.length < HEADER_BYTES) throw new CorruptFilterError("scalable Bloom filter bytes shorter than the header");
    expectTag(bytes, 0, TAG, "scalable Bloom filter");
    if (bytes[4] !== VERSION) throw new CorruptFilterError(`unsupported scalable Bloom filter version ${bytes[4]}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let filter: ScalableBloomFilter;
    try {
      filter = new ScalableBloomFilter({
        falsePositiveBound: view.getFloat64(8, true),
        growth: view.getFloat64(16, true),
        tightening: view.getFloat64(24, true),
        initialCapacity: view.getFloat64(32, true),
      });
    } catch (cause) {
      throw new CorruptFilterError("scalable Bloom filter header holds impossible parameters", { cause });
    }
    const sliceCount = view.getUint32(40, true);
    let at = HEADER_BYTES;
    for (let i = 0; i < sliceCount; i++) {
      if (at + 4 > bytes.length) throw new CorruptFilterError(`scalable Bloom filter truncated before slice ${i}`);
      const length = view.getUint32(at, true);
      if (at + 4 + length > bytes.length) throw new CorruptFilterError(`scalable Bloom filter truncated inside slice ${i}`);
      filter.slices.push(BloomFilter.fromBytes(bytes.subarray(at + 4, at + 4 + length)));
      at += 4 + length;
    }
    const last = filter.slices[filter.slices.length - 1];
    if (last !== undefined) filter.lastSliceMaxOnes = filter.maxOnes(last, filter.slices.length - 1);
    if (at !== bytes.length) throw new CorruptFilterError("scalable Bloom filter has trailing bytes");
    return filter;
  }
}
