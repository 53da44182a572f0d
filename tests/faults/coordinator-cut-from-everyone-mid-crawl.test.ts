/**
 * Fault: a real network partition around the only coordinator, for 20 s mid-crawl (twice the death timeout
 * it judges nodes by), then healed. The coordinator runs in a network namespace of its own
 * (tests/support/netns.ts); the cut drops, silently, every packet it sends to anyone (NATS, Redis, the
 * nodes, this test), so nothing reaches it either. Unlike a kill or a freeze, it runs all along: its ticks
 * go on, its reads of the cluster state time out, and when the link heals it finds every node's heartbeat
 * as old as the cut. It must not take that for deaths: a coordinator that cannot read the cluster state is
 * blind, and a blind coordinator moves nothing (coordinator/rebalancer.ts); once it sees again, the nodes'
 * fresh heartbeats are there. Meanwhile the nodes crawl on without it (the ring is in the cluster state, not
 * in the coordinator).
 *
 * Checked from outside: the common verdict (nothing lost, politeness with no tolerance, extra fetches at
 * most the tasks in flight, no host waiting longer than the cut, its gap and the slack); pages fetched during
 * the cut; the ring after it as it was before (same epoch, same owners: nothing moved); the coordinator
 * answers again and counts both frontier nodes, with a true pages/s rate.
 */
import { describe, expect, test } from "bun:test";
import { pageRequests, REGION, waitUntil, type RingView } from "../e2e/cluster/harness.ts";
import { crawlThroughFault, describeRun, expectNothingLost, partitionFor, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";

const cluster = useCluster();
const CUT_MS = 20_000;

describe("fault: the coordinator cut from everyone for 20 s", () => {
  test(
    "the only coordinator cut from every other process for 20 s: the crawl goes on, nothing moves, nothing lost, polite",
    async () => {
      let ringBefore: RingView | undefined;
      let ringAfter: RingView | undefined;
      let duringCut = 0;
      let statsAfter: { frontierNodes: number; pagesPerSecond: number } | undefined;
      const run = await crawlThroughFault(cluster, {
        // At a 1.5 s gap the crawl is about 50 s long, so pages are left when the cut is over and the
        // coordinator has answered again, however fast the box (at 1 s, about 90 were left on this one).
        minGapMs: 1_500,
        netns: ["coordinator-1"],
        async inject(roles, web) {
          const c = roles.coordinator;
          ringBefore = await c.ring();
          const window = await partitionFor(roles.netnsOf("coordinator-1")!, undefined, CUT_MS, async (cutAt) => {
            // The crawl goes on without the coordinator.
            await Bun.sleep(CUT_MS - 2_000);
            duringCut = pageRequests(web).filter((r) => r.startedAt > cutAt).length;
          });
          // Back: it answers, sees both frontier nodes live, and the ring is the one it left.
          await waitUntil(
            async () => {
              const s = await c.stats();
              statsAfter = { frontierNodes: s.frontierNodes, pagesPerSecond: s.pagesPerSecond };
              return s.frontierNodes === 2 && s.pagesPerSecond > 0;
            },
            { timeoutMs: 30_000, what: "the coordinator to answer again with both frontier nodes", procs: [c.proc] },
          );
          ringAfter = await c.ring();
          return window;
        },
      });
      console.log(describeRun("coordinator cut from everyone 20 s", run));
      const ringAtEnd = await run.roles.coordinator.ring();
      console.log(
        JSON.stringify({
          duringCut,
          statsAfter,
          epochs: { before: ringBefore!.epoch, after: ringAfter?.epoch, atEnd: ringAtEnd.epoch },
          restored: run.counters.frontier["replication.partitions.restored"] ?? 0,
        }),
      );
      expectNothingLost(run);
      expect(duringCut).toBeGreaterThan(0);
      // Nothing moved: the same ring (epoch and owners) after the cut and at the end, no partition rebuilt.
      for (const ring of [ringAfter!, ringAtEnd]) {
        expect(ring.epoch).toBe(ringBefore!.epoch);
        expect(ring.regions[REGION]!.owners).toEqual(ringBefore!.regions[REGION]!.owners);
      }
      expect(run.counters.frontier["replication.partitions.restored"] ?? 0).toBe(0);
    },
    ROW_TIMEOUT_MS,
  );
});
