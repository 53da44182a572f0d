import { expect, test } from "bun:test";
import { fromParts, hammingDistance, SimHashIndex } from "./index.ts";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random64 = (next: () => number) => fromParts(Math.floor(next() * 2 ** 32), Math.floor(next() * 2 ** 32));

/** Flips `bits` distinct random bits of `h`. */
function flip(h: bigint, bits: number, next: () => number): bigint {
  const chosen = new Set<number>();
  while (chosen.size < bits) chosen.add(Math.floor(next() * 64));
  for (const b of chosen) h ^= 1n << BigInt(b);
  return h;
}

test("SimHashIndex - finds a stored fingerprint at distance 0 to 3 and reports the distance", () => {
  const next = rng(1);
  const index = new SimHashIndex();
  const h = random64(next);
  index.add(h, "page-1");
  for (let d = 0; d <= 3; d++) expect(index.findNear(flip(h, d, next))).toEqual({ id: "page-1", distance: d });
});

test("SimHashIndex - rejects fingerprints further away than the limit", () => {
  const next = rng(2);
  const index = new SimHashIndex();
  const h = random64(next);
  index.add(h, "page-1");
  expect(index.findNear(flip(h, 4, next))).toBeUndefined();
  expect(index.findNear(flip(h, 20, next))).toBeUndefined();
  expect(index.findNear(flip(h, 2, next), 1)).toBeUndefined();
  expect(new SimHashIndex().findNear(h)).toBeUndefined();
});

test("SimHashIndex - returns the closest match, the earliest added on a tie", () => {
  const next = rng(3);
  const index = new SimHashIndex();
  const h = random64(next);
  index.add(flip(h, 3, next), "far");
  index.add(h ^ 1n, "near-a");
  index.add(h ^ 2n, "near-b");
  expect(index.findNear(h)).toEqual({ id: "near-a", distance: 1 });
  index.add(h, "exact");
  index.add(h, "exact-again");
  expect(index.findNear(h)).toEqual({ id: "exact", distance: 0 });
  expect(index.size).toBe(5);
});

test("SimHashIndex - misses nothing within 3 bits: agrees with brute force on 3,000 queries", () => {
  const next = rng(4);
  const index = new SimHashIndex();
  const stored: bigint[] = [];
  // Clusters of close fingerprints make ties and several candidates per query common.
  for (let c = 0; c < 400; c++) {
    const center = random64(next);
    const members = 1 + Math.floor(next() * 10);
    for (let m = 0; m < members; m++) {
      const h = flip(center, Math.floor(next() * 6), next);
      stored.push(h);
      index.add(h, `id-${stored.length - 1}`);
    }
  }
  for (let q = 0; q < 3000; q++) {
    const query = next() < 0.9 ? flip(stored[Math.floor(next() * stored.length)]!, Math.floor(next() * 6), next) : random64(next);
    const maxDistance = Math.floor(next() * 4);
    let best = -1;
    let bestDistance = maxDistance + 1;
    stored.forEach((h, i) => {
      const d = hammingDistance(h, query);
      if (d < bestDistance) [best, bestDistance] = [i, d];
    });
    const expected = best < 0 ? undefined : { id: `id-${best}`, distance: bestDistance };
    expect(index.findNear(query, maxDistance)).toEqual(expected);
  }
});

test("SimHashIndex - accepts signed 64-bit values as their unsigned twins", () => {
  const index = new SimHashIndex();
  index.add(-1n, "all-ones");
  expect(index.findNear((1n << 64n) - 2n)).toEqual({ id: "all-ones", distance: 1 });
});

test("SimHashIndex - refuses a distance the four-block index cannot answer exactly", () => {
  expect(() => new SimHashIndex().findNear(0n, 4)).toThrow(RangeError);
  expect(() => new SimHashIndex().findNear(0n, -1)).toThrow(RangeError);
});
