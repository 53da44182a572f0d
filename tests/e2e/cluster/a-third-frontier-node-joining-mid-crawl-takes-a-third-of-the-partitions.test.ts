/**
 * Rebalancing on join: a third frontier node started mid-crawl takes about a third of the partitions,
 * every partition that moves goes to it (the consistent-hash ring moves nothing between the old nodes),
 * the moved partitions carry hosts that still had work, and at the end every expected page was fetched
 * exactly once with no politeness violation across the handoff.
 */
import { describe, expect, test } from "bun:test";
import {
  fetchCounts,
  missing,
  ownerCounts,
  ownerOf,
  pageRequests,
  probeRequests,
  PARTITIONS,
  REGION,
  repeated,
  useCluster,
  waitForIdle,
  waitForPages,
  waitUntil,
} from "./harness.ts";

const cluster = useCluster();
/** Long enough that a host's pages take several seconds, so the join lands while every host has work. */
const GAP_MS = 400;

describe("cluster: a frontier node joins", () => {
  test("a third frontier node joining mid-crawl takes about a third of the partitions and nothing is lost or fetched twice", async () => {
    const web = await cluster.web({ hosts: 12, pagesPerHost: 16, linksPerPage: 8, pageBytes: 2000 });
    const seeds = Array.from({ length: 12 }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
    });
    const c = roles.coordinator;
    const before = await c.ring();
    expect(Object.keys(ownerCounts(before)).sort()).toEqual(["frontier-1", "frontier-2"]);

    await c.seed(seeds);
    await waitUntil(() => pageRequests(web).length >= expected.pages.size / 4, {
      timeoutMs: 30_000,
      what: "a quarter of the pages to be fetched",
      procs: roles.procs(),
    });
    const fetchedAtJoin = new Set(fetchCounts(pageRequests(web)).keys());
    const hostsWithWork = new Set([...expected.pages].filter((u) => !fetchedAtJoin.has(u)).map((u) => new URL(u).host));
    await roles.startFrontier("frontier-3");
    const after = await c.waitForSettledRing(["frontier-1", "frontier-2", "frontier-3"]);

    const counts = ownerCounts(after);
    // About a third: 64 / 3 = 21.3; virtual nodes keep it within a few partitions of that.
    expect(counts["frontier-3"]!).toBeGreaterThanOrEqual(Math.floor(PARTITIONS * 0.2));
    expect(counts["frontier-3"]!).toBeLessThanOrEqual(Math.ceil(PARTITIONS * 0.47));
    const moved = before.regions[REGION]!.owners.flatMap((owner, p) => (after.regions[REGION]!.owners[p] !== owner ? [p] : []));
    expect(moved.length).toBe(counts["frontier-3"]!);
    expect(moved.filter((p) => after.regions[REGION]!.owners[p] !== "frontier-3")).toEqual([]);
    // The join moved live work, not just empty partitions.
    const movedHostsWithWork = [...hostsWithWork].filter((host) => ownerOf(after, host) === "frontier-3");
    expect(movedHostsWithWork.length).toBeGreaterThan(0);

    await waitForPages(web, expected.pages, { timeoutMs: 90_000, what: "every expected page", procs: roles.procs() });
    await waitForIdle(c, web, { timeoutMs: 30_000, procs: roles.procs() });

    const pages = pageRequests(web);
    expect(missing(expected.pages, fetchCounts(pages).keys())).toEqual([]);
    expect([...fetchCounts(pages).keys()].sort()).toEqual([...expected.pages].sort());
    expect(repeated(pages)).toEqual({});
    // Each host's /sitemap.xml probe moved with its partition: asked once, whichever node owned the host.
    expect(
      probeRequests(web)
        .map((r) => r.host)
        .sort(),
    ).toEqual([...expected.hosts].sort());
    expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    // The new node fetched the moved hosts' remaining pages itself.
    const f3 = (await c.nodes()).find((n) => n.id === "frontier-3")!;
    expect(f3.counters["fetch.pages"] ?? 0).toBeGreaterThan(0);
  }, 180_000);
});
