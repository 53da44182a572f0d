import { expect, test } from "bun:test";
import { planProcesses, portNames } from "./plan.ts";

test("cluster up - every crawler process keeps one copy of each stream, bucket and replicated state: its one nats-server per region keeps no more", () => {
  const input = { regions: ["r1", "r2"], coordinators: 2, frontiers: 2, fetchers: 2 };
  let next = 20_000;
  const ports = Object.fromEntries(
    Object.entries(portNames(input)).map(([id, names]) => [id, Object.fromEntries(names.map((n) => [n, next++]))]),
  );
  const plans = planProcesses({
    ...input,
    dir: "/tmp/cluster-plan-test",
    partitions: 8,
    regionRules: "r2=.example",
    proxyUrl: undefined,
    allowPrivateAddresses: false,
    deno: false,
    token: "t",
    frontierArgs: [],
    ports,
  });
  const crawler = plans.filter((p) => p.role === "coordinator" || p.role === "frontier" || p.role === "fetch");
  expect(crawler.map((p) => p.role).sort()).toEqual(["coordinator", "coordinator", "fetch", "fetch", "frontier", "frontier"]);
  for (const p of crawler) expect(p.env["CRAWL_NATS_REPLICAS"]).toBe("1");
});
