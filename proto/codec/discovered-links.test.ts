/**
 * The hand-written DiscoveredLinks encoder against the generated code, its reference: random batches must
 * encode to the same bytes, or fail with the same CodecError.
 */
import { expect, test } from "bun:test";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { encodeDiscoveredLinks, encodeDiscoveredLinksGenerated } from "./discovered-links.ts";

/** mulberry32: the same cases on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = ReturnType<typeof rng>;
const int = (r: Random, n: number) => Math.floor(r() * n);
const pick = <T>(r: Random, xs: readonly T[]): T => xs[int(r, xs.length)]!;

/** Non-ASCII pieces: two- and three-byte characters, an astral one, lone surrogates, a BOM, NUL and DEL. */
const ODD = ["é", "ü", "ß", "€", "中文", "😀", "\ud800", "\udfff", "x\ud83d", "\ufeff", "\u0000", "\u007f", "\u0080", "\u07ff", "\u0800"];

function text(r: Random, base: string, long = true): string {
  const roll = r();
  if (roll < 0.7) return base;
  if (roll < 0.8) return base + "/" + "a".repeat(int(r, 300)); // lengths across the 1- and 2-byte varint prefixes
  if (roll < 0.85) return long && r() < 0.2 ? base + "/" + "long-path-segment".repeat(500 + int(r, 500)) : base + "?q=" + int(r, 1e9); // 8-17 KB
  if (roll < 0.95) return base + pick(r, ODD) + pick(r, ODD);
  return pick(r, ["", pick(r, ODD), "\ufeff" + base]);
}

function randomUrl(r: Random, hosts: string[], sources: string[], long: boolean): DiscoveredUrl {
  const host = text(r, pick(r, hosts), false);
  const u: DiscoveredUrl = {
    url: text(r, `http://${host}/page/${int(r, 1000)}`, long),
    host,
    depth: pick(r, [0, 1, 3, 127, 128, 300, 16_384, 2 ** 31, 2 ** 32 - 1]),
    redirectHops: pick(r, [0, 0, 0, 1, 5, 200]),
  };
  const source = r();
  if (source < 0.8) u.sourceUrl = pick(r, sources);
  else if (source < 0.85) u.sourceUrl = "";
  if (r() < 0.1) u.isSeed = r() < 0.8;
  if (r() < 0.1) u.foundOnNearDuplicate = r() < 0.8;
  if (r() < 0.1) u.kind = pick(r, ["page", "media"] as const);
  if (r() < 0.15) {
    const grants = Array.from({ length: int(r, 4) }, () =>
      pick(r, ["http://a.test/", "https://b.test:8443/", "http://xn--bcher-kva.test/"]),
    );
    u.sitemap = r() < 0.5 ? { grants } : { grants, fromIndex: r() < 0.7 };
  }
  if (r() < 0.2)
    u.lastmod = pick(r, [
      0,
      0.4,
      -0.4,
      1.5,
      -1,
      -1_700_000_000_000,
      1_700_000_000_123,
      2 ** 31,
      2 ** 32,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ]);
  if (r() < 0.2) u.sitemapPriority = pick(r, [0, -0, 0.1, 0.5, 1]);
  return u;
}

function randomBatch(r: Random, size: number, long = true): DiscoveredUrl[] {
  // Few hosts and sources, as a page's links are, so the codec's "same as the previous link" paths are taken.
  const hosts = Array.from({ length: 1 + int(r, 3) }, (_, i) => `site${int(r, 2000)}${i}.test`);
  const sources = Array.from({ length: 1 + int(r, 2) }, () => `http://${pick(r, hosts)}/page/${int(r, 1000)}`);
  return Array.from({ length: size }, () => randomUrl(r, hosts, sources, long));
}

function outcome(run: () => unknown): string {
  try {
    const value = run();
    if (value instanceof Uint8Array) return `ok ${Buffer.from(value).toString("hex")}`;
    return `ok ${JSON.stringify(value, (_k, v) => (typeof v === "number" ? numberKey(v) : v))}`;
  } catch (err) {
    const e = err as Error;
    const cause = e.cause as Error | undefined;
    return `throws ${e.constructor.name}: ${e.message}${cause ? ` (cause ${cause.constructor.name}: ${cause.message})` : ""}`;
  }
}

/** JSON loses -0 and NaN; the comparison must not. */
function numberKey(v: number): number | string {
  return Object.is(v, -0) ? "-0" : Number.isNaN(v) ? "NaN" : v === Infinity || v === -Infinity ? String(v) : v;
}

function sameEncoding(partition: number, urls: DiscoveredUrl[]): void {
  const expected = outcome(() => encodeDiscoveredLinksGenerated(partition, urls));
  expect(outcome(() => encodeDiscoveredLinks(partition, urls))).toBe(expected);
}

test("discovered links - random batches encode to the generated code's bytes, empty and huge ones too", () => {
  const r = rng(1);
  for (let i = 0; i < 400; i++) {
    const size = pick(r, [0, 1, 2, 30, 30, 30, 100]);
    sameEncoding(pick(r, [0, 1, 63, 127, 128, 4095, 2 ** 32 - 1]), randomBatch(r, size));
  }
  sameEncoding(7, randomBatch(r, 1000));
  sameEncoding(8, randomBatch(r, 20_000));
});

test("discovered links - a non-ASCII string anywhere in a batch, even the last, gives the generated code's UTF-8", () => {
  const base: DiscoveredUrl[] = Array.from({ length: 30 }, (_, i) => ({
    url: `http://a.test/${i}`,
    host: "a.test",
    depth: 1,
    sourceUrl: "http://a.test/",
    redirectHops: 0,
  }));
  for (const odd of ODD) {
    for (const at of [0, 15, 29]) {
      for (const field of ["url", "host", "sourceUrl"] as const) {
        const urls = base.map((u) => ({ ...u }));
        urls[at]![field] = `${urls[at]![field]}${odd}`;
        sameEncoding(3, urls);
      }
      const urls = base.map((u) => ({ ...u }));
      urls[at]!.sitemap = { grants: [`http://${odd}.test/`] };
      sameEncoding(3, urls);
    }
  }
});

test("discovered links - values the wire cannot carry fail with the generated path's CodecError, the first one first", () => {
  const ok: DiscoveredUrl = { url: "http://a.test/", host: "a.test", depth: 1, redirectHops: 0 };
  for (const partition of [-1, 1.5, 2 ** 32, Number.NaN]) sameEncoding(partition, [{ ...ok, depth: -1 }]);
  for (const bad of [-1, 0.5, 2 ** 32, Number.NaN, Infinity]) {
    sameEncoding(0, [ok, { ...ok, depth: bad }]);
    sameEncoding(0, [ok, { ...ok, redirectHops: bad }]);
    sameEncoding(0, [ok, { ...ok, depth: bad, redirectHops: bad }]);
  }
  for (const bad of [Number.NaN, Infinity, -Infinity, 2 ** 60, -(2 ** 60), 2 ** 53]) {
    sameEncoding(0, [ok, { ...ok, lastmod: bad }]);
    sameEncoding(0, [{ ...ok, lastmod: bad, depth: -1 }]);
    sameEncoding(0, [
      { ...ok, lastmod: bad },
      { ...ok, depth: -1 },
    ]);
  }
  // Not the encoder's to refuse (the decoder refuses them): written as given.
  sameEncoding(0, [
    { ...ok, sitemapPriority: 7 },
    { ...ok, sitemapPriority: Number.NaN },
    { ...ok, sitemap: { grants: ["nope"] } },
  ]);
});
