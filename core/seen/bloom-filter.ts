/**
 * The in-process Bloom filter behind the seen-set: has this URL (maybe) been queued before? Sized for a
 * planned number of keys at 10 bits and 7 hashes per key by default (0.82 % false positives at that
 * load, the policy in ARCHITECTURE.md). `add` checks and sets in one pass and says whether the key was
 * already (maybe) present, which is the question the frontier asks. Bit offsets come from
 * `fillBloomBitPositions`, and the bit order is Redis's, so the body of `toBytes()` is the same string a
 * Redis-backed filter of the same shape holds. Never a false negative; a full filter only raises the
 * false-positive rate, so growing is the caller's (or `ScalableBloomFilter`'s) job.
 */
import { hash32Bytes, hash64pairInto } from "../hash/index.ts";
import { checkBloomShape, fillBloomBitPositions, MAX_BLOOM_BITS } from "./bit-positions.ts";
import { CorruptFilterError, expectTag, getU64, popcountBytes, setTag, setU64 } from "./codec.ts";

export interface BloomFilterOptions {
  /** Planned number of distinct keys; the size is `expectedCount * bitsPerKey` bits. */
  expectedCount: number;
  /** Bits per planned key (default 10). */
  bitsPerKey?: number;
  /** Number of hash functions (default 7, the optimum for 10 bits per key). */
  hashes?: number;
}

/** An explicit shape, e.g. to mirror a Redis-backed filter whose size is fixed elsewhere. */
export interface BloomFilterShape {
  /** Size in bits. */
  bits: number;
  hashes: number;
  /** Planned number of keys; informational (growth decisions). Defaults to bits / 10. */
  capacity?: number;
}

export const DEFAULT_BITS_PER_KEY = 10;
export const DEFAULT_HASHES = 7;

const TAG = "BLOM";
const VERSION = 1;
/** tag(4) version(1) hashes(1) reserved(2) bits(4) count(8) capacity(8) checksum(4). */
const HEADER_BYTES = 32;

export class BloomFilter {
  /** Size in bits. */
  readonly bits: number;
  /** Number of hash functions (bit offsets per key). */
  readonly hashes: number;
  /** Planned number of keys the filter was sized for. */
  readonly capacity: number;
  private readonly data: Uint8Array;
  private added = 0;
  private ones = 0;
  private readonly lanes = new Uint32Array(2);
  private readonly offsets: Uint32Array;

  constructor(options: BloomFilterOptions | BloomFilterShape) {
    if ("expectedCount" in options) {
      const { expectedCount, bitsPerKey = DEFAULT_BITS_PER_KEY, hashes = DEFAULT_HASHES } = options;
      if (!Number.isInteger(expectedCount) || expectedCount < 1) {
        throw new RangeError(`expectedCount must be a positive integer, got ${expectedCount}`);
      }
      if (!(bitsPerKey > 0)) throw new RangeError(`bitsPerKey must be positive, got ${bitsPerKey}`);
      // Rounded up to whole bytes so the saved body holds no padding bits.
      this.bits = Math.max(8, Math.ceil((expectedCount * bitsPerKey) / 8) * 8);
      if (this.bits > MAX_BLOOM_BITS)
        throw new RangeError(`a filter for ${expectedCount} keys at ${bitsPerKey} bits each exceeds ${MAX_BLOOM_BITS} bits`);
      this.hashes = hashes;
      this.capacity = expectedCount;
    } else {
      this.bits = options.bits;
      this.hashes = options.hashes;
      this.capacity = options.capacity ?? Math.max(1, Math.floor(options.bits / DEFAULT_BITS_PER_KEY));
    }
    checkBloomShape(this.bits, this.hashes);
    this.data = new Uint8Array(Math.ceil(this.bits / 8));
    this.offsets = new Uint32Array(this.hashes);
  }

  /** Number of adds that changed the filter: distinct keys, less the few that were false positives. */
  get count(): number {
    return this.added;
  }

  /** Number of bits set to 1. */
  get setBits(): number {
    return this.ones;
  }

  /**
   * Adds `key` and returns whether it was (maybe) present before: `false` means certainly new.
   * Idempotent: adding a key twice returns `true` the second time and changes nothing.
   */
  add(key: string): boolean {
    hash64pairInto(key, this.lanes);
    return this.addHashed(this.lanes[0]!, this.lanes[1]!);
  }

  /** Whether `key` is (maybe) present; `false` means it was certainly never added. */
  has(key: string): boolean {
    hash64pairInto(key, this.lanes);
    return this.hasHashed(this.lanes[0]!, this.lanes[1]!);
  }

  /** `add` for a key already hashed with `hash64pair` (lets several filters share one hashing). */
  addHashed(h1: number, h2: number): boolean {
    const offsets = this.offsets;
    const data = this.data;
    fillBloomBitPositions(h1, h2, this.bits, this.hashes, offsets);
    let present = true;
    for (let i = 0; i < offsets.length; i++) {
      const o = offsets[i]!;
      const byte = o >>> 3;
      const mask = 0x80 >>> (o & 7);
      const v = data[byte]!;
      if ((v & mask) === 0) {
        data[byte] = v | mask;
        this.ones++;
        present = false;
      }
    }
    if (!present) this.added++;
    return present;
  }

  /** `has` for a key already hashed with `hash64pair`. */
  hasHashed(h1: number, h2: number): boolean {
    const offsets = this.offsets;
    const data = this.data;
    fillBloomBitPositions(h1, h2, this.bits, this.hashes, offsets);
    for (let i = 0; i < offsets.length; i++) {
      const o = offsets[i]!;
      if ((data[o >>> 3]! & (0x80 >>> (o & 7))) === 0) return false;
    }
    return true;
  }

  /**
   * False-positive rate now, from the share of bits set: (ones / m)^k. Tracks the real fill, so it stays
   * honest even when more keys were added than planned.
   */
  estimatedFalsePositiveRate(): number {
    return Math.pow(this.ones / this.bits, this.hashes);
  }

  /**
   * Versioned binary form: a 32-byte little-endian header (tag "BLOM", version, hashes, bits, count,
   * capacity, murmur3 checksum of the body) followed by the bit array in Redis bit order.
   */
  toBytes(): Uint8Array {
    const out = new Uint8Array(HEADER_BYTES + this.data.length);
    const view = new DataView(out.buffer);
    setTag(out, 0, TAG);
    out[4] = VERSION;
    out[5] = this.hashes;
    view.setUint32(8, this.bits, true);
    setU64(view, 12, this.added);
    setU64(view, 20, this.capacity);
    view.setUint32(28, hash32Bytes(this.data), true);
    out.set(this.data, HEADER_BYTES);
    return out;
  }

  /** Rebuilds a filter saved by `toBytes`; throws `CorruptFilterError` on anything that does not check out. */
  static fromBytes(bytes: Uint8Array): BloomFilter {
    if (bytes.length < HEADER_BYTES) throw new CorruptFilterError("Bloom filter bytes shorter than the header");
    expectTag(bytes, 0, TAG, "Bloom filter");
    if (bytes[4] !== VERSION) throw new CorruptFilterError(`unsupported Bloom filter version ${bytes[4]}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const hashes = bytes[5]!;
    const bits = view.getUint32(8, true);
    let filter: BloomFilter;
    try {
      filter = new BloomFilter({ bits, hashes, capacity: getU64(view, 20) });
    } catch (cause) {
      throw new CorruptFilterError("Bloom filter header describes an impossible shape", { cause });
    }
    const body = bytes.subarray(HEADER_BYTES);
    if (body.length !== filter.data.length) {
      throw new CorruptFilterError(`Bloom filter body is ${body.length} bytes, header says ${filter.data.length}`);
    }
    if (hash32Bytes(body) !== view.getUint32(28, true)) throw new CorruptFilterError("Bloom filter checksum mismatch");
    filter.data.set(body);
    filter.added = getU64(view, 12);
    filter.ones = popcountBytes(filter.data);
    return filter;
  }
}
