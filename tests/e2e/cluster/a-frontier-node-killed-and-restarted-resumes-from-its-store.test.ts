/**
 * Crash and restart of a frontier node: `kill -9` mid-crawl, then the same `--node-id` and `--data-dir`
 * again, well within the coordinator's death timeout (60 s here), so its partitions stay where they were
 * and its queue comes back from its SQLite store (the seen-set in Redis would never admit those URLs a
 * second time, so a node that forgot its store would lose them). At the end every expected page was
 * fetched; a page fetched twice must be one of the killed node's hosts whose first fetch had started
 * before the kill (what may have been in flight); and no host was hit too soon across the restart.
 */
import { describe, expect, test } from "bun:test";
import {
  fetchCounts,
  missing,
  ownerOf,
  pageRequests,
  probeRequests,
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

describe("cluster: a frontier node crashes", () => {
  test("a frontier node killed with SIGKILL and restarted with the same id and data dir resumes from its store", async () => {
    const web = await cluster.web({ hosts: 12, pagesPerHost: 16, linksPerPage: 8, pageBytes: 2000 });
    const seeds = Array.from({ length: 12 }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const roles = await cluster.roles({
      web,
      frontiers: [VICTIM, "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      coordinatorArgs: ["--death-timeout", "60s"],
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
    });
    const c = roles.coordinator;
    const ringBefore = await c.ring();
    const victimHosts = new Set([...expected.hosts].filter((host) => ownerOf(ringBefore, host) === VICTIM));
    expect(victimHosts.size).toBeGreaterThan(0);

    await c.seed(seeds);
    // Mid-crawl: the victim's hosts have been fetched from, and most of their pages are still to come.
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
    const fetchedBeforeKill = new Set([...pageRequests(web), ...probeRequests(web)].filter((r) => r.startedAt < killedAt).map(urlOf));
    expect(victimPages.filter((u) => !fetchedBeforeKill.has(u)).length).toBeGreaterThan(victimPages.length / 3);

    const restarted = await roles.startFrontier(VICTIM);
    expect(restarted.pid).not.toBe(victim.pid);
    await waitForPages(web, expected.pages, { timeoutMs: 60_000, what: "every expected page", procs: roles.procs() });
    await waitForIdle(c, web, { timeoutMs: 30_000, procs: roles.procs() });

    // The partitions never moved: the restart beat the death timeout.
    const ringAfter = await c.ring();
    expect(ringAfter.epoch).toBe(ringBefore.epoch);
    expect(ringAfter.regions).toEqual(ringBefore.regions);

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
    expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    // The restarted process did the rest of its hosts' work, from what its store held.
    const node = (await c.nodes()).find((n) => n.id === VICTIM)!;
    expect(node.counters["fetch.pages"] ?? 0).toBeGreaterThan(0);
  }, 240_000);
});
