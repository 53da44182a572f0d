import { expect, test } from "bun:test";
import { parseRegionRules, regionOf } from "../cluster/index.ts";
import type { DiscoveredUrl } from "../model/index.ts";
import { partitionOf } from "../ring/index.ts";
import { addressOf, groupByOwner, hostPartition } from "./index.ts";

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

test("addressing - with the domain key, every host of a registrable domain has the domain's partition and region", () => {
  // A rule naming a name below the domain does not split it: the domain's own region wins.
  const rules = parseRegionRules("eu=.de;apac=blog.example.co.uk", "us");
  const scheme = { rules, partitions: 64, politenessKey: "domain" as const };
  const hosts = ["a.blog.example.co.uk", "b.blog.example.co.uk:8080", "example.co.uk", "www.example.co.uk"];
  for (const host of hosts) {
    expect(addressOf(host, scheme)).toEqual({ region: "us", partition: partitionOf("example.co.uk", 64) });
    expect(hostPartition(host, scheme)).toBe(partitionOf("example.co.uk", 64));
  }
  expect(addressOf("x.shop.example.de", scheme)).toEqual({ region: "eu", partition: partitionOf("example.de", 64) });
  // An IP literal is its own key, port dropped.
  expect(addressOf("127.0.0.1:8080", scheme).partition).toBe(partitionOf("127.0.0.1", 64));
  // Their links travel as one group to the one owner.
  const groups = groupByOwner(
    hosts.map((h) => link(`http://${h}/`)),
    scheme,
  );
  expect(groups).toHaveLength(1);
});

test("addressing - with the host key (the default) and the ip key, hosts are placed by themselves", () => {
  const rules = parseRegionRules("apac=blog.example.co.uk", "us");
  for (const politenessKey of [undefined, "host", "ip"] as const) {
    const scheme = { rules, partitions: 64, ...(politenessKey ? { politenessKey } : {}) };
    expect(addressOf("a.blog.example.co.uk:8080", scheme)).toEqual({
      region: "apac",
      partition: partitionOf("a.blog.example.co.uk:8080", 64),
    });
    expect(hostPartition("www.example.co.uk", scheme)).toBe(partitionOf("www.example.co.uk", 64));
  }
});
