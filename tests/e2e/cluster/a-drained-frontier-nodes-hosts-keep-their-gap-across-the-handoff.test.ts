/**
 * Politeness across a partition handoff: a frontier node drained mid-crawl (`crawlctl node drain`) hands
 * every partition it owned to the other one, hosts with pages still to fetch among them. A host whose
 * last request ended just before the move must still wait its full gap after that request, as the server
 * counts it, when the new owner asks it again: the host's next allowed time travels with the partition,
 * and the new owner, whose clock is not the old owner's, waits a full gap from when it takes the host over.
 * The gap is long (3 s), longer than a handoff takes, so a new owner that started a moved host afresh
 * would be caught.
 */
import { describe, expect, test } from "bun:test";
import { ownerOf, pageRequests, useCluster, waitUntil } from "./harness.ts";
import { logClock } from "../../testweb/index.ts";

const cluster = useCluster();
const GAP_MS = 3000;
const DRAINED = "frontier-2";

describe("cluster: a frontier node is drained", () => {
  test("the hosts a drained frontier node hands over keep their gap across the handoff", async () => {
    const web = await cluster.web({ hosts: 16, pagesPerHost: 40, linksPerPage: 8, pageBytes: 2000 });
    const hosts = Array.from({ length: 16 }, (_, i) => `site${i}.test`);
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", DRAINED],
      fetchers: ["fetch-1", "fetch-2"],
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
    });
    const c = roles.coordinator;
    const ringBefore = await c.ring();
    const moving = hosts.filter((host) => ownerOf(ringBefore, host) === DRAINED);
    expect(moving.length).toBeGreaterThan(0);

    await c.seed(hosts.map((host) => web.url(host)));
    // Every moving host is being crawled steadily: robots.txt and at least two pages behind it.
    const pagesOf = (host: string, since = 0) => pageRequests(web, [host]).filter((r) => r.startedAt >= since).length;
    await waitUntil(() => moving.every((host) => pagesOf(host) >= 2), {
      timeoutMs: 60_000,
      what: "two pages of every host that will move",
      procs: roles.procs(),
    });

    const drain = await c.crawlctl(["node", "drain", DRAINED]);
    expect(drain.code).toBe(0);
    const drainedAt = logClock();
    const after = await c.waitForSettledRing(["frontier-1"], 60_000);
    expect(moving.filter((host) => ownerOf(after, host) !== "frontier-1")).toEqual([]);
    // The new owner went on with each moved host: two more pages of each since the drain.
    await waitUntil(() => moving.every((host) => pagesOf(host, drainedAt) >= 2), {
      timeoutMs: 60_000,
      what: "two pages of every moved host after the drain",
      procs: roles.procs(),
    });
    expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 180_000);
});
