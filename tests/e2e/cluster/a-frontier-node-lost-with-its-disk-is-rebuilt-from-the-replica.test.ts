/**
 * A frontier node lost for good, disk included: `kill -9` mid-crawl, its data directory deleted, never
 * restarted. The coordinator gives its partitions to the other frontier node after the death timeout, which
 * rebuilds each of them from the replicated state in JetStream (snapshot + journal) before serving it. At
 * the end every page the test web expects was fetched (no queued URL was lost with the disk); a page fetched
 * twice is one of the lost node's hosts that was in flight at the kill (one per host at most); robots.txt
 * was not fetched again for hosts whose verdict the lost node had (it came back with the partition); and no
 * host was hit too soon, across the loss (the restored hosts carry their next-allowed times, and wait until a
 * fetch the lost node had started must have ended), as the test web's own checker judges it
 * (tests/testweb/violations.ts). The numbers it asserts are the fault suite's: pages fetched twice ≤ the pages
 * in flight at the fault, queued URLs lost 0, politeness violations 0.
 */
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import {
  fetchCounts,
  missing,
  ownerOf,
  pageRequests,
  probeRequests,
  REGION,
  repeated,
  urlOf,
  useCluster,
  waitForIdle,
  waitForPages,
  waitUntil,
} from "./harness.ts";
import { logClock } from "../../testweb/index.ts";

const cluster = useCluster();
const GAP_MS = 400;
const VICTIM = "frontier-1";
const SURVIVOR = "frontier-2";

describe("cluster: a frontier node is lost with its disk", () => {
  test("a frontier node killed with SIGKILL whose data dir is deleted: its partitions are rebuilt from the replica, nothing lost, nothing impolite", async () => {
    const web = await cluster.web({ hosts: 12, pagesPerHost: 16, linksPerPage: 8, pageBytes: 2000 });
    const seeds = Array.from({ length: 12 }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const roles = await cluster.roles({
      web,
      frontiers: [VICTIM, SURVIVOR],
      fetchers: ["fetch-1", "fetch-2"],
      coordinatorArgs: ["--death-timeout", "3s"],
      // Short fetch timeouts: a restored host waits until a fetch the lost node started must have ended.
      frontierArgs: ["--min-gap", `${GAP_MS}ms`, "--connect-timeout", "1s", "--response-timeout", "2s", "--fetch-lease", "5s"],
    });
    const c = roles.coordinator;
    const ringBefore = await c.ring();
    const victimHosts = new Set([...expected.hosts].filter((host) => ownerOf(ringBefore, host) === VICTIM));
    expect(victimHosts.size).toBeGreaterThan(0);

    await c.seed(seeds);
    const victimPages = [...expected.pages].filter((u) => victimHosts.has(new URL(u).host));
    await waitUntil(() => pageRequests(web, victimHosts).length >= victimPages.length / 4, {
      timeoutMs: 30_000,
      what: `a quarter of ${VICTIM}'s pages to be fetched`,
      procs: roles.procs(),
    });
    const victim = roles.frontiers.get(VICTIM)!;
    victim.signal("SIGKILL");
    const exit = await victim.waitExit(10_000);
    const killedAt = logClock();
    expect(exit.signal).toBe("SIGKILL");
    rmSync(roles.dataDirOf(VICTIM)!, { recursive: true, force: true });
    roles.frontiers.delete(VICTIM);
    const fetchedBeforeKill = new Set([...pageRequests(web), ...probeRequests(web)].filter((r) => r.startedAt < killedAt).map(urlOf));
    const robotsBeforeKill = new Set(web.requests.filter((r) => r.path === "/robots.txt" && r.startedAt < killedAt).map((r) => r.host));
    expect(victimPages.filter((u) => !fetchedBeforeKill.has(u)).length).toBeGreaterThan(victimPages.length / 3);

    await waitForPages(web, expected.pages, { timeoutMs: 90_000, what: "every expected page", procs: roles.procs() });
    await waitForIdle(c, web, { timeoutMs: 30_000, procs: roles.procs() });

    // Every partition is the survivor's now, and it rebuilt the victim's from the replica.
    const ringAfter = await c.ring();
    expect(ringAfter.regions[REGION]!.owners.every((o) => o === SURVIVOR)).toBe(true);
    const survivor = (await c.nodes()).find((n) => n.id === SURVIVOR)!;
    const moved = ringBefore.regions[REGION]!.owners.filter((o) => o === VICTIM).length;
    expect(survivor.counters["replication.partitions.restored"]).toBe(moved);

    const pages = pageRequests(web);
    expect(missing(expected.pages, fetchCounts(pages).keys())).toEqual([]);
    expect([...fetchCounts(pages).keys()].sort()).toEqual([...expected.pages].sort());
    // Fetched twice only if it may have been in flight at the kill: a victim's host, first fetched before it.
    // A /sitemap.xml probe is remembered like a page: asked again only on the same terms.
    const twice = repeated([...pages, ...probeRequests(web)]);
    const unexplained = Object.keys(twice).filter((u) => !victimHosts.has(new URL(u).host) || !fetchedBeforeKill.has(u));
    expect(unexplained).toEqual([]);
    expect(Object.values(twice).every((n) => n === 2)).toBe(true);
    expect(Object.keys(twice).length).toBeLessThanOrEqual(victimHosts.size);
    // robots.txt verdicts came back with the partitions: no host asked twice.
    const robots = web.requests.filter((r) => r.path === "/robots.txt");
    expect(robots.length).toBe(new Set(robots.map((r) => r.host)).size);
    expect(robotsBeforeKill.size).toBeGreaterThan(0);
    expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 240_000);
});
