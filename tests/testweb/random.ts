/**
 * Deterministic randomness for the synthetic web. Every page, link and word of the test web is derived
 * from a 32-bit hash of (seed, host, path, purpose), so any test can recompute what the server serves
 * without asking it. Nothing here touches `Math.random`: a run must be reproducible from its seed alone.
 */

/** FNV-1a over the parts (joined by a separator byte no host or path contains), then a murmur3 finaliser
 * so that neighbouring inputs ("page/1", "page/2") land far apart. */
export function hash32(...parts: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  for (let p = 0; p < parts.length; p++) {
    const s = String(parts[p]);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x1f;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A small, fast generator (mulberry32) returning floats in [0, 1). */
export type Rng = () => number;

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export function pick(r: Rng, n: number): number {
  return Math.floor(r() * n);
}
