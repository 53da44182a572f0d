import { expect, test } from "bun:test";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { packLinks, unpackLinks } from "./protocol.ts";

const page = "http://a.test/page/1";
const found: DiscoveredUrl[] = [
  { url: "http://a.test/page/2", host: "a.test", depth: 2, sourceUrl: page, redirectHops: 0 },
  { url: "http://b.test/", host: "b.test", depth: 2, sourceUrl: page, redirectHops: 0 },
  { url: "http://a.test/page/3?x=1", host: "a.test", depth: 2, sourceUrl: page, redirectHops: 0 },
];

test("fetch thread links - a page's links are packed as two strings and come back exactly as they were", () => {
  const packed = packLinks(found);
  expect("urls" in packed).toBe(true);
  expect(unpackLinks(structuredClone(packed))).toEqual(found);
});

test("fetch thread links - media links and a near duplicate's links are packed with their kinds and flag, and come back as they were", () => {
  const withKinds: DiscoveredUrl[] = [
    { ...found[0]!, foundOnNearDuplicate: true },
    { ...found[1]!, kind: "media", foundOnNearDuplicate: true },
    { ...found[2]!, kind: "page", foundOnNearDuplicate: true },
  ];
  const packed = packLinks(withKinds);
  expect("urls" in packed).toBe(true);
  expect(unpackLinks(structuredClone(packed))).toEqual(withKinds);
  expect(unpackLinks(structuredClone(packLinks([{ ...found[0]!, kind: "media" }])))).toEqual([{ ...found[0]!, kind: "media" }]);
});

test("fetch thread links - links that do not share depth, source and hops, or are seeds, or hold a newline, go plain", () => {
  const mixed: DiscoveredUrl[][] = [
    [found[0]!, { ...found[1]!, depth: 3 }],
    [found[0]!, { ...found[1]!, sourceUrl: undefined }],
    [found[0]!, { ...found[1]!, redirectHops: 1 }],
    [{ ...found[0]!, isSeed: true }],
    [found[0]!, { ...found[1]!, foundOnNearDuplicate: true }],
    [found[0]!, { ...found[1]!, lastmod: 1_700_000_000_000, sitemapPriority: 0.8 }],
    [found[0]!, { ...found[1]!, sitemap: { grants: ["http://b.test/"] } }],
    [found[0]!, { ...found[1]!, url: "http://b.test/\nx" }],
  ];
  for (const links of mixed) {
    const packed = packLinks(links);
    expect("plain" in packed).toBe(true);
    expect(unpackLinks(structuredClone(packed))).toEqual(links);
  }
  expect(unpackLinks(packLinks([]))).toEqual([]);
  const noSource = found.map(({ sourceUrl: _s, ...l }) => l);
  expect(unpackLinks(structuredClone(packLinks(noSource)))).toEqual(noSource);
});
