/**
 * Fault: the coordinator killed (SIGKILL) mid-crawl, the only one there is, and started again by hand 20
 * pages later (what a process manager or the fleet's systemd unit does). The crawl does not go through the
 * coordinator: frontier and fetch nodes keep crawling while it is down (the test waits for pages fetched
 * meanwhile), and nothing they do is lost. Started again with the same node id, it takes the lease at once
 * (its own lease, which it still holds in the cluster state), sees both frontier nodes live and the ring
 * as it was, and its first totals carry the crawl's true rate, not zero. Nothing lost, no page fetched
 * twice beyond what was in flight, polite, no host stalled.
 */
import { describe, expect, test } from "bun:test";
import { pageRequests, waitUntil, type Roles } from "../e2e/cluster/harness.ts";
import type { TestWeb } from "../testweb/index.ts";
import { crawlThroughFault, describeRun, expectNothingLost, ROW_TIMEOUT_MS, useCluster, type FaultWindow } from "./harness.ts";
import { logClock } from "../testweb/index.ts";

const cluster = useCluster();

/** Pages fetched while the coordinator is down, to call the crawl going on without it. */
const PAGES_WHILE_DOWN = 20;

describe("fault: coordinator killed", () => {
  test(
    "the coordinator killed mid-crawl and started again: the crawl goes on without it, it takes the lease back, nothing lost",
    async () => {
      let ringBefore = "";
      let ringAfter = "";
      let rateAfter = 0;
      let frontiersAfter = 0;
      const run = await crawlThroughFault(cluster, {
        // A slower crawl than the suite's (its 768 pages take ~7 s on an idle box): the coordinator's kill,
        // 20 pages without it and its restart all land well before the last page.
        minGapMs: 1000,
        inject: async (roles: Roles, web: TestWeb): Promise<FaultWindow> => {
          ringBefore = JSON.stringify((await roles.coordinator.ring()).regions);
          const nodes = () => [...roles.frontiers.values(), ...roles.fetchers.values()];
          const before = pageRequests(web).length;
          roles.coordinator.proc.signal("SIGKILL");
          await roles.coordinator.proc.waitExit(10_000);
          const killedAt = logClock();
          await waitUntil(() => pageRequests(web).length >= before + PAGES_WHILE_DOWN, {
            timeoutMs: 60_000,
            what: `${PAGES_WHILE_DOWN} pages fetched with the coordinator down`,
            procs: nodes(),
          });
          const c = await roles.startCoordinator();
          const backAt = logClock();
          // Its first answers: the nodes and the ring as they were, and the crawl's rate under way.
          const stats = await c.stats();
          rateAfter = stats.pagesPerSecond;
          frontiersAfter = stats.frontierNodes;
          ringAfter = JSON.stringify((await c.ring()).regions);
          return { killedAt, backAt };
        },
      });
      console.log(describeRun("coordinator killed", run));
      expectNothingLost(run);
      expect(frontiersAfter).toBe(2);
      expect(rateAfter).toBeGreaterThan(0);
      // The ring is the cluster's, not the coordinator's: it came back unchanged.
      expect(ringAfter).toBe(ringBefore);
    },
    ROW_TIMEOUT_MS,
  );
});
