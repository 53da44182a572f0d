import { expect, test } from "bun:test";
import { parseRegionRules } from "../core/cluster/index.ts";
import type { DiscoveredUrl } from "../core/model/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { routeLinks } from "./route-links.ts";

const link = (url: string): DiscoveredUrl => ({ url, host: new URL(url).host, depth: 1, redirectHops: 0 });

test("route links - each link goes to its host's region and partition, one group per pair, order kept", () => {
  const rules = parseRegionRules("eu=.de;apac=.jp", "us");
  const links = ["http://a.de/1", "http://b.com/1", "http://a.de/2", "http://c.jp:8080/", "http://b.com/2"].map(link);
  const groups = routeLinks(links, rules, 8);
  expect(groups.flatMap((g) => g.urls)).toHaveLength(5);
  for (const g of groups) {
    for (const u of g.urls) {
      expect(g.partition).toBe(partitionOf(u.host, 8));
      expect(g.region).toBe(u.host.endsWith(".de") ? "eu" : u.host.startsWith("c.jp") ? "apac" : "us");
    }
  }
  const de = groups.find((g) => g.urls.some((u) => u.host === "a.de"))!;
  expect(de.urls.map((u) => u.url)).toEqual(["http://a.de/1", "http://a.de/2"]);
  expect(routeLinks([], rules, 8)).toEqual([]);
});

test("route links - hosts of one partition share a group only within one region", () => {
  const rules = parseRegionRules("eu=.de", "us");
  const groups = routeLinks(["http://x.de/", "http://x.com/"].map(link), rules, 1);
  expect(groups.map((g) => [g.region, g.partition])).toEqual([
    ["eu", 0],
    ["us", 0],
  ]);
});
