/**
 * The hand-written DiscoveredLinks codec against the generated code, its reference: random batches must
 * encode to the same bytes (or fail with the same CodecError), and any bytes, valid or not, must decode to
 * the same result (the same keys in the same order) or fail with the same CodecError and cause.
 */
import { expect, test } from "bun:test";
import { Buffer } from "node:buffer";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import {
  decodeDiscoveredLinks,
  decodeDiscoveredLinksGenerated,
  encodeDiscoveredLinks,
  encodeDiscoveredLinksGenerated,
} from "./discovered-links.ts";
import { pick as pickIndex, rng, type Rng } from "../../tests/testweb/random.ts";

type Random = Rng;
// The same cases on every run: the test web's seeded generator.
const int = (r: Random, n: number) => pickIndex(r, n);
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
  if (r() < 0.2) u.job = pick(r, [1, 2, 127, 128, 999, 2 ** 32 - 1]);
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

function sameDecoding(bytes: Uint8Array): string {
  const expected = outcome(() => decodeDiscoveredLinksGenerated(bytes));
  expect(outcome(() => decodeDiscoveredLinks(bytes))).toBe(expected);
  return expected;
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

// A protobuf writer of the test's own, to build messages the encoders never write.
const varint = (n: number | bigint): number[] => {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
const tag = (field: number, wireType: number) => varint(field * 8 + wireType);
const delimited = (field: number, payload: number[]) => [...tag(field, 2), ...varint(payload.length), ...payload];
const utf8 = (s: string) => [...new TextEncoder().encode(s)];
const double = (x: number) => [...new Uint8Array(new Float64Array([x]).buffer)];

/** A field no decoder knows, of any wire type (a group holds more fields, nested). */
function unknownField(r: Random, depth = 0): number[] {
  const field = pick(r, [13, 15, 16, 99, 2047, 2 ** 28]);
  switch (int(r, depth > 2 ? 4 : 5)) {
    case 0:
      return [...tag(field, 0), ...varint(pick(r, [0, 1, 300, 2 ** 35, -1]))];
    case 1:
      return [...tag(field, 1), ...double(r())];
    case 2:
      return delimited(field, utf8("unknown ".repeat(int(r, 20))));
    case 3:
      return [...tag(field, 5), 1, 2, 3, 4];
    default:
      return [...tag(field, 3), ...unknownField(r, depth + 1), ...unknownField(r, depth + 1), ...tag(field, 4)];
  }
}

/** One DiscoveredUrl message, field by field in a random order, with strays: unknown fields, known fields of
 * another wire type, a scalar given twice, values the model refuses. */
function urlMessage(r: Random, u: DiscoveredUrl, odd: number): number[] {
  const fields: number[][] = [];
  if (u.url !== "" || r() < 0.2) fields.push(delimited(1, utf8(u.url)));
  if (u.host !== "" || r() < 0.2) fields.push(delimited(2, utf8(u.host)));
  if (u.depth !== 0) fields.push([...tag(3, 0), ...varint(u.depth)]);
  if (u.sourceUrl) fields.push(delimited(4, utf8(u.sourceUrl)));
  if (u.redirectHops !== 0) fields.push([...tag(5, 0), ...varint(u.redirectHops)]);
  if (u.isSeed !== undefined) fields.push([...tag(6, 0), ...varint(u.isSeed ? pick(r, [1, 2, 2 ** 40]) : 0)]);
  if (u.sitemap) {
    const parts = u.sitemap.grants.map((g) => delimited(1, utf8(g)));
    if (u.sitemap.fromIndex !== undefined) parts.push([...tag(2, 0), u.sitemap.fromIndex ? 1 : 0]);
    if (r() < odd) parts.push(unknownField(r));
    fields.push(delimited(7, parts.flat()));
  }
  if (u.lastmod !== undefined) fields.push([...tag(8, 0), ...varint(BigInt(Math.round(u.lastmod)))]);
  if (u.sitemapPriority !== undefined) fields.push([...tag(9, 1), ...double(u.sitemapPriority)], [...tag(10, 0), 1]);
  if (u.kind === "media") fields.push([...tag(11, 0), 2]);
  if (u.foundOnNearDuplicate !== undefined) fields.push([...tag(12, 0), u.foundOnNearDuplicate ? 1 : 0]);
  if (u.job !== undefined) fields.push([...tag(13, 0), ...varint(u.job)]);
  while (r() < odd) {
    const stray = int(r, 9);
    if (stray === 0)
      fields.push([...tag(8, 0), ...varint(pick(r, [2n ** 53n, -(2n ** 53n), 2n ** 53n - 1n, -(2n ** 53n) + 1n, 2n ** 63n - 1n, -1n]))]);
    else if (stray === 1) fields.push([...tag(9, 1), ...double(pick(r, [1.5, -0.1, Number.NaN, -0]))], [...tag(10, 0), 1]);
    else if (stray === 2) fields.push([...tag(11, 0), ...varint(pick(r, [1, 3, 99, -1, 2 ** 32 - 1]))]);
    else if (stray === 3) fields.push(delimited(7, delimited(1, utf8(pick(r, ["javascript:x", "http://a.test/p", ""])))));
    else if (stray === 4)
      fields.push([...tag(pick(r, [1, 2, 4, 7]), 0), ...varint(5)]); // a string field as a varint
    else if (stray === 5)
      fields.push(delimited(pick(r, [3, 5, 6, 8, 10, 11, 12]), [1, 2, 3])); // a varint field as bytes
    else if (stray === 6)
      fields.push([...tag(3, 0), ...varint(int(r, 2 ** 32))]); // a second depth: the last one counts
    else if (stray === 7) fields.push(delimited(2, utf8(pick(r, ["b.test", "a.test", ""]))));
    else fields.push(unknownField(r));
  }
  for (let i = fields.length - 1; i > 0; i--) {
    const j = int(r, i + 1);
    [fields[i], fields[j]] = [fields[j]!, fields[i]!];
  }
  return fields.flat();
}

function linksMessage(r: Random, partition: number, urls: DiscoveredUrl[], odd: number): Uint8Array {
  const parts: number[][] = [];
  if (partition !== 0 || r() < 0.1) parts.push([...tag(1, 0), ...varint(partition)]);
  for (const u of urls) {
    parts.push(delimited(2, urlMessage(r, u, odd)));
    if (r() < odd) parts.push(r() < 0.8 ? unknownField(r) : [...tag(1, 0), ...varint(int(r, 4096))]);
  }
  return new Uint8Array(parts.flat());
}

test("discovered links - the generated code's messages, and hand-made ones with unknown and stray fields, decode alike", () => {
  const r = rng(2);
  const seen = new Set<string>();
  for (let i = 0; i < 600; i++) {
    const urls = randomBatch(r, pick(r, [0, 1, 3, 30]));
    const partition = pick(r, [0, 5, 4095, 2 ** 32 - 1]);
    const generated = outcome(() => encodeDiscoveredLinksGenerated(partition, urls));
    if (generated.startsWith("ok")) sameDecoding(encodeDiscoveredLinksGenerated(partition, urls));
    seen.add(sameDecoding(linksMessage(r, partition, urls, pick(r, [0, 0.1, 0.3, 0.6]))).split(":")[0]!);
  }
  // Both kinds of outcome were reached: valid messages, and messages with values the model refuses.
  expect([...seen].sort()).toEqual(['ok {"partition"', "throws CodecError"].sort());
  sameDecoding(encodeDiscoveredLinksGenerated(1, randomBatch(r, 20_000)));
});

test("discovered links - truncated messages, bad varints, wrong wire types and random bytes fail (or pass) alike", () => {
  const r = rng(3);
  const samples = Array.from({ length: 30 }, () => linksMessage(r, int(r, 64), randomBatch(r, 1 + int(r, 3), false), 0.3));
  const outcomes = new Set<string>();
  const note = (bytes: Uint8Array) => outcomes.add(sameDecoding(bytes).replace(/^ok .*/, "ok"));
  for (const bytes of samples) {
    // Every truncation.
    for (let end = 0; end < bytes.length; end++) note(bytes.subarray(0, end));
    // Flipped, dropped and inserted bytes.
    for (let k = 0; k < 200; k++) {
      const copy = [...bytes];
      const at = int(r, copy.length);
      const op = int(r, 3);
      if (op === 0) copy[at] = int(r, 256);
      else if (op === 1) copy.splice(at, 1);
      else copy.splice(at, 0, pick(r, [0x00, 0x07, 0x0c, 0x0e, 0x0f, 0x80, 0xff, int(r, 256)]));
      note(new Uint8Array(copy));
    }
  }
  for (let k = 0; k < 2000; k++) note(new Uint8Array(Array.from({ length: int(r, 40) }, () => int(r, 256))));
  const cases = [
    [0x08, ...Array(10).fill(0xff), 0x01], // an 11-byte varint
    [0x08, ...Array(9).fill(0x80), 0x00], // a 10-byte one: fine
    [0x12, 0x05, 0x49, 0x00], // a double cut short
    [0x0e], // wire type 6
    [0x0f], // wire type 7
    [0x0b, 0x13, 0x0c, 0x0c], // groups: a nested start, its end, the outer end
    [0x0b, 0x13, 0x1c, 0x0c], // a nested group closed by another field's end
    [0x0b, 0x08, 0x01, 0x0c, 0x08, 0x05], // a group, then the partition
    [0x0b, 0x0e], // wire type 6 inside a group
    [0x0b, 0x00], // field 0 inside a group
    [0x0b, 0x88, 0x80, 0x80, 0x80, 0x10], // a tag past 32 bits inside a group
    [...Array(101).fill(0x0b)], // groups nested past the limit
    [...Array(100).fill(0x0b), ...Array(99).fill(0x0c)], // deep groups, unclosed
    [0x12, 0x03, 0x00, 0x08, 0x07, 0x08, 0x09], // a zero tag ends a link, the rest goes on at the outer level
    [0x12, 0x03, 0x0c, 0x08, 0x07, 0x08, 0x09], // so does an end-group tag
    [0x0c, 0x08, 0x07], // and ends the whole message at the outer level
    [0x12, 0x02, 0x0a, 0x05, 0x61, 0x62, 0x63, 0x64, 0x65], // a string running past its link, inside the buffer
    [0x12, 0x7f, 0x0a, 0x01, 0x61], // a link longer than the buffer
    [0x12, 0x04, 0x0a, 0x02, 0xc3, 0x28], // invalid UTF-8: a lead byte without its continuation
    [0x12, 0x05, 0x12, 0x03, 0xed, 0xa0, 0x80], // an encoded surrogate
    [0x12, 0x04, 0x12, 0x02, 0xc0, 0x80], // an overlong NUL
    [0x12, 0x06, 0x22, 0x04, 0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
    [0x12, 0x05, 0x0a, 0x03, 0xf0, 0x9f, 0x98], // a four-byte character cut short
    [0x12, 0x03, 0x0a, 0x01, 0x80, 0x12, 0x03, 0x0a, 0x01, 0xff], // lone continuation and 0xff bytes
    [0x12, 0x05, 0x12, 0x03, 0xef, 0xbb, 0xbf, 0x12, 0x05, 0x12, 0x03, 0xef, 0xbb, 0xbf], // a BOM host, repeated
    [0x12, 0x05, 0x0a, 0x03, 0xef, 0xbb, 0xbf], // a BOM alone
    [0x12, 0x04, 0x30, 0xff, 0xff, 0x03], // a bool of three bytes
    [0x12, 0x0b, 0x30, ...Array(9).fill(0x80), 0x02], // a bool whose only bit is past 64
  ];
  for (const bytes of cases) note(new Uint8Array(bytes));
  // The inputs reached the decoders' failures, not only their successes.
  const kinds = [...outcomes].map((o) => o.replace(/ \d+.*/, "").replace(/"[^"]*"/, '""'));
  for (const expected of [
    "premature EOF",
    "invalid varint",
    "cant skip wire type",
    "illegal tag",
    "invalid end group tag",
    "maximum recursion depth",
  ]) {
    expect(kinds.some((k) => k.includes(expected))).toBe(true);
  }
});
