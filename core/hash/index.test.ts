import { expect, test } from "bun:test";
import { fingerprintBytes, hash32, hash32Bytes, hash64pair, hash64pairInto, murmur3x86_128, PAIR_SEED_A, PAIR_SEED_B } from "./index.ts";

/** SMHasher's VerificationTest: hashes of prefixes 0..255 of [0,1,...,255] with seed 256-i, hashed again. */
function smhasherVerification(hashBytes: (b: Uint8Array, seed: number) => Uint8Array, width: number): number {
  const key = new Uint8Array(256);
  const hashes = new Uint8Array(width * 256);
  for (let i = 0; i < 256; i++) {
    key[i] = i;
    hashes.set(hashBytes(key.subarray(0, i), 256 - i), i * width);
  }
  const f = hashBytes(hashes, 0);
  return (f[0]! | (f[1]! << 8) | (f[2]! << 16) | (f[3]! << 24)) >>> 0;
}

/** A deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomString(next: () => number, length: number): string {
  // Mix of ASCII, 2-byte, 3-byte, astral pairs and lone surrogates, to exercise every UTF-8 branch.
  const pool = [0x61, 0x7a, 0x2f, 0xe9, 0x416, 0x4e2d, 0x1f600, 0xd800, 0xdfff, 0x7f, 0x80, 0x7ff, 0x800, 0xffff];
  let s = "";
  for (let i = 0; i < length; i++) {
    if (next() < 0.6) s += String.fromCharCode(0x20 + Math.floor(next() * 95));
    else s += String.fromCodePoint(pool[Math.floor(next() * pool.length)]!);
  }
  return s;
}

// Recorded once from this implementation; a change here means every partition moves.
const FROZEN_HOSTS = [0x6971e733, 0x93692eda, 0x42903b73];

test("hash32 - the bytes variant matches SMHasher's verification value for MurmurHash3_x86_32", () => {
  const v = smhasherVerification((b, seed) => new Uint8Array(Uint32Array.of(hash32Bytes(b, seed)).buffer), 4);
  expect(v).toBe(0xb0f57ee3);
});

test("hash32 - matches published MurmurHash3_x86_32 values for ASCII strings", () => {
  expect(hash32("")).toBe(0);
  expect(hash32("", 1)).toBe(0x514e28b7);
  expect(hash32("", 0xffffffff)).toBe(0x81f16f39);
  expect(hash32("test")).toBe(0xba6bd213);
  expect(hash32("Hello, world!")).toBe(0xc0363e43);
  expect(hash32("The quick brown fox jumps over the lazy dog")).toBe(0x2e4ff723);
});

test("hash32 - equals murmur3 of the TextEncoder UTF-8 bytes for any string, lone surrogates included", () => {
  const next = rng(42);
  const encoder = new TextEncoder();
  for (let i = 0; i < 3000; i++) {
    const s = randomString(next, Math.floor(next() * 40));
    const seed = Math.floor(next() * 4294967296);
    expect(hash32(s, seed)).toBe(hash32Bytes(encoder.encode(s), seed));
  }
});

test("hash32 - always returns a uint32", () => {
  const next = rng(7);
  for (let i = 0; i < 2000; i++) {
    const h = hash32(randomString(next, 12));
    expect(Number.isInteger(h) && h >= 0 && h <= 0xffffffff).toBe(true);
  }
});

test("hash32 - frozen values for hosts never change, since partitions depend on them", () => {
  expect([hash32("example.com"), hash32("xn--bcher-kva.example"), hash32("bücher.example")]).toEqual(FROZEN_HOSTS);
});

test("hash64pair - is murmur3 of the UTF-8 bytes with the two documented seeds", () => {
  const next = rng(9);
  const encoder = new TextEncoder();
  const out = new Uint32Array(2);
  for (let i = 0; i < 1000; i++) {
    const s = randomString(next, Math.floor(next() * 100));
    const bytes = encoder.encode(s);
    const pair = hash64pair(s);
    expect(pair).toEqual([hash32Bytes(bytes, PAIR_SEED_A), hash32Bytes(bytes, PAIR_SEED_B)]);
    hash64pairInto(s, out);
    expect([out[0], out[1]]).toEqual(pair);
  }
});

test("hash64pair - the two lanes are uncorrelated bit by bit over 200k URL-like keys", () => {
  const agree = new Float64Array(32);
  const n = 200_000;
  const pairs = new Set<string>();
  for (let i = 0; i < n; i++) {
    const [a, b] = hash64pair(`https://host${i % 997}.example/path/${i}`);
    const same = ~(a ^ b);
    for (let bit = 0; bit < 32; bit++) agree[bit]! += (same >>> bit) & 1;
    pairs.add(`${a}:${b}`);
  }
  // Each bit agrees with probability 1/2; 5 standard deviations at n = 200k is about 0.0056.
  for (let bit = 0; bit < 32; bit++) expect(Math.abs(agree[bit]! / n - 0.5)).toBeLessThan(0.0056);
  expect(pairs.size).toBe(n);
});

test("murmur3x86_128 - matches SMHasher's verification value for MurmurHash3_x86_128", () => {
  const v = smhasherVerification((b, seed) => new Uint8Array(murmur3x86_128(b, seed).buffer), 16);
  expect(v).toBe(0xb3ece62a);
});

test("fingerprintBytes - is 32 hex digits of the digest bytes, and the empty input hashes to zero", () => {
  expect(fingerprintBytes(new Uint8Array(0))).toBe("0".repeat(32));
  const fp = fingerprintBytes(new TextEncoder().encode("The quick brown fox jumps over the lazy dog"));
  expect(fp).toBe("c383152f672ceeec6cf67b5d2c1de9e5");
});

test("fingerprintBytes - every tail length gives a distinct fingerprint", () => {
  const bytes = new Uint8Array(64).map((_, i) => i * 7);
  const seen = new Set<string>();
  for (let n = 0; n <= 64; n++) seen.add(fingerprintBytes(bytes.subarray(0, n)));
  expect(seen.size).toBe(65);
});

test("murmur3x86_128 - bytes at any alignment in their buffer hash the same as an aligned copy", () => {
  const buffer = new Uint8Array(300).map((_, i) => (i * 131 + 7) & 0xff);
  for (let offset = 0; offset < 4; offset++)
    for (let n = 0; n <= 80; n++) {
      const view = buffer.subarray(offset, offset + n);
      expect({ offset, n, h: [...murmur3x86_128(view, 9)] }).toEqual({ offset, n, h: [...murmur3x86_128(view.slice(), 9)] });
    }
});

test("murmur3x86_128 - long unaligned inputs (copied to aligned words first) hash as their aligned copy, at every size", () => {
  // Around the copy threshold (256 block bytes), a body's size, and past the reused copy's 1 MiB.
  const buffer = new Uint8Array((1 << 20) + 100).map((_, i) => (i * 131 + 7) & 0xff);
  for (const n of [255, 256, 257, 271, 272, 1000, 25_001, 60_000, 30_000, (1 << 20) + 33, 500])
    for (let offset = 1; offset < 4; offset++) {
      const view = buffer.subarray(offset, offset + n);
      expect({ offset, n, h: [...murmur3x86_128(view, 9)] }).toEqual({ offset, n, h: [...murmur3x86_128(view.slice(), 9)] });
    }
});
