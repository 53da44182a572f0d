import { expect, test } from "bun:test";
import { parseRegionRules, regionOf } from "../cluster/index.ts";
import type { DiscoveredUrl } from "../model/index.ts";
import { partitionOf } from "../ring/index.ts";
import { addressOf, groupByOwner } from "./index.ts";

const link = (url: string): DiscoveredUrl => ({ url, host: new URL(url).host, depth: 1, redirectHops: 0 });

test("addressing - a host's address is its region by the rules and its partition hash mod P", () => {
  const rules = parseRegionRules("eu=.de;apac=.jp", "us");
  for (const host of ["shop.example.de", "a.jp:8080", "example.com", "example.com:8080"]) {
    expect(addressOf(host, { rules, partitions: 64 })).toEqual({ region: regionOf(host, rules), partition: partitionOf(host, 64) });
  }
  expect(addressOf("shop.example.de", { rules, partitions: 64 }).region).toBe("eu");
  expect(() => addressOf("example.com", { rules, partitions: 0 })).toThrow(RangeError);
});

test("addressing - each link goes to its host's region and partition, one group per pair, order kept", () => {
  const rules = parseRegionRules("eu=.de;apac=.jp", "us");
  const links = ["http://a.de/1", "http://b.com/1", "http://a.de/2", "http://c.jp:8080/", "http://b.com/2"].map(link);
  const groups = groupByOwner(links, { rules, partitions: 8 });
  expect(groups.flatMap((g) => g.urls)).toHaveLength(5);
  for (const g of groups) {
    for (const u of g.urls) {
      expect(g.partition).toBe(partitionOf(u.host, 8));
      expect(g.region).toBe(u.host.endsWith(".de") ? "eu" : u.host.startsWith("c.jp") ? "apac" : "us");
    }
  }
  const de = groups.find((g) => g.urls.some((u) => u.host === "a.de"))!;
  expect(de.urls.map((u) => u.url)).toEqual(["http://a.de/1", "http://a.de/2"]);
  expect(groupByOwner([], { rules, partitions: 8 })).toEqual([]);
});

test("addressing - hosts of one partition share a group only within one region", () => {
  const rules = parseRegionRules("eu=.de", "us");
  const groups = groupByOwner(["http://x.de/", "http://x.com/"].map(link), { rules, partitions: 1 });
  expect(groups.map((g) => [g.region, g.partition])).toEqual([
    ["eu", 0],
    ["us", 0],
  ]);
});

test("addressing - groups come in the order of their first URL", () => {
  const rules = parseRegionRules("eu=.de", "us");
  const groups = groupByOwner(["http://x.com/1", "http://x.de/", "http://x.com/2"].map(link), { rules, partitions: 1 });
  expect(groups.map((g) => [g.region, g.urls.map((u) => u.url)])).toEqual([
    ["us", ["http://x.com/1", "http://x.com/2"]],
    ["eu", ["http://x.de/"]],
  ]);
});
