/**
 * Fault (a planned one): a third frontier node joins mid-crawl. The ring gives it about a third of the
 * partitions, every one of them taken from the two old nodes (nothing moves between those), and each old
 * owner streams the moved partitions' rows to it in a handoff: queued URLs, URL states, host states with
 * their next allowed times, robots verdicts. The new node claims each one from the handoff (it never
 * rebuilds one from the replica), goes on with the moved hosts itself, and nothing is lost or fetched twice;
 * no host waits longer than the handoff and its gap, and none is asked too soon across it.
 */
import { describe, expect, test } from "bun:test";
import { ownerCounts, PARTITIONS, REGION, type RingView } from "../e2e/cluster/harness.ts";
import { crawlThroughFault, describeRun, expectNothingLost, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";
import { logClock } from "../testweb/index.ts";

const cluster = useCluster();
const OLD = ["frontier-1", "frontier-2"];
const JOINER = "frontier-3";

describe("fault: a frontier node joins", () => {
  test(
    "a third frontier node joining mid-crawl takes about a third of the partitions, with their hosts' work; nothing lost or fetched twice",
    async () => {
      let before: RingView | undefined;
      let after: RingView | undefined;
      const run = await crawlThroughFault(cluster, {
        // A slower crawl than the suite's: at its gap the 512 pages after the first third take as little as
        // 4.3 s, about what a node's start or stop and the ring settling take under load. At 1 s, about 21 s.
        minGapMs: 1000,
        async inject(roles) {
          before = await roles.coordinator.ring();
          const killedAt = logClock();
          await roles.startFrontier(JOINER);
          // Back when every handoff to it is done: the ring settled on three owners.
          after = await roles.coordinator.waitForSettledRing([...OLD, JOINER], 60_000);
          return { killedAt, backAt: logClock() };
        },
      });
      console.log(describeRun("frontier node joining", run));
      const moved = before!.regions[REGION]!.owners.flatMap((owner, p) => (after!.regions[REGION]!.owners[p] !== owner ? [p] : []));
      const joiner = (await run.roles.coordinator.nodes()).find((n) => n.id === JOINER)!;
      console.log(
        JSON.stringify({
          moved: moved.length,
          claimed: joiner.counters["replication.partitions.claimed"],
          restored: joiner.counters["replication.partitions.restored"] ?? 0,
          pages: joiner.counters["fetch.pages"],
        }),
      );
      expectNothingLost(run);
      // A handoff loses nothing in flight: no page is fetched twice.
      expect(run.twice).toEqual({});
      // About a third (64 / 3 = 21.3; virtual nodes keep it within a few), all of it moved to the new node.
      const counts = ownerCounts(after!);
      expect(counts[JOINER]!).toBeGreaterThanOrEqual(Math.floor(PARTITIONS * 0.2));
      expect(counts[JOINER]!).toBeLessThanOrEqual(Math.ceil(PARTITIONS * 0.47));
      expect(moved.length).toBe(counts[JOINER]!);
      expect(moved.filter((p) => after!.regions[REGION]!.owners[p] !== JOINER)).toEqual([]);
      // Each moved partition came in a handoff, none was rebuilt from the replica; the new node fetched the
      // moved hosts' remaining pages itself.
      expect(joiner.counters["replication.partitions.claimed"]).toBe(moved.length);
      expect(joiner.counters["replication.partitions.restored"] ?? 0).toBe(0);
      expect(joiner.counters["fetch.pages"] ?? 0).toBeGreaterThan(0);
    },
    ROW_TIMEOUT_MS,
  );
});
