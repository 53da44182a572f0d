/**
 * Fault (a planned one): a frontier node drained mid-crawl (`crawlctl node drain`), as an operator does
 * before taking a machine away. It stops handing out tasks, every partition it owned moves to the other
 * node in a handoff (queued URLs, URL states, host states with their next allowed times, robots verdicts),
 * and once it has nothing left to serve it deletes its node record; then the operator stops it (SIGTERM) and
 * it exits cleanly. The other node claims every moved partition from the handoff and finishes the crawl:
 * nothing is lost or fetched twice, no host waits longer than the drain and its gap, none is asked too soon.
 */
import { describe, expect, test } from "bun:test";
import { ownerCounts, PARTITIONS, type RingView, waitUntil } from "../e2e/cluster/harness.ts";
import { crawlThroughFault, describeRun, expectNothingLost, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";
import { logClock } from "../testweb/index.ts";

const cluster = useCluster();
const DRAINED = "frontier-2";
const STAYS = "frontier-1";

describe("fault: a frontier node drained", () => {
  test(
    "a frontier node drained mid-crawl hands every partition to the other and exits; nothing lost or fetched twice",
    async () => {
      let before: RingView | undefined;
      let claimedBefore = 0;
      let drainedExit: { code: number | null; signal: string | null } | undefined;
      let drainedOutput = "";
      const run = await crawlThroughFault(cluster, {
        // A slower crawl than the suite's: at its gap the 512 pages after the first third take as little as
        // 4.3 s, about what a node's start or stop and the ring settling take under load. At 1 s, about 21 s.
        minGapMs: 1000,
        async inject(roles) {
          const c = roles.coordinator;
          before = await c.ring();
          // Its counter counts the handoffs of the cluster's start too (the two nodes joined one after the other).
          claimedBefore = (await c.nodes()).find((n) => n.id === STAYS)!.counters["replication.partitions.claimed"] ?? 0;
          const killedAt = logClock();
          const drain = await c.crawlctl(["node", "drain", DRAINED]);
          expect(drain.code).toBe(0);
          // Back when every handoff is done: the ring settled on the node that stays.
          await c.waitForSettledRing([STAYS], 60_000);
          const backAt = logClock();
          // Drained: it deleted its record, having nothing left; the operator stops it and it exits cleanly.
          const proc = roles.frontiers.get(DRAINED)!;
          await waitUntil(async () => !(await c.nodes()).some((n) => n.id === DRAINED), {
            timeoutMs: 30_000,
            what: `${DRAINED} to delete its node record once drained`,
            procs: [proc],
          });
          roles.frontiers.delete(DRAINED);
          drainedExit = await proc.stop(15_000);
          drainedOutput = proc.output();
          return { killedAt, backAt };
        },
      });
      console.log(describeRun("frontier node drained", run));
      const stays = (await run.roles.coordinator.nodes()).find((n) => n.id === STAYS)!;
      const moved = ownerCounts(before!)[DRAINED] ?? 0;
      const claimed = (stays.counters["replication.partitions.claimed"] ?? 0) - claimedBefore;
      console.log(JSON.stringify({ moved, claimed, exit: drainedExit }));
      expectNothingLost(run);
      expect(run.twice).toEqual({});
      expect(moved).toBeGreaterThan(0);
      expect(ownerCounts(await run.roles.coordinator.ring())).toEqual({ [STAYS]: PARTITIONS });
      // Every partition it had came in a handoff; none was rebuilt from the replica.
      expect(claimed).toBe(moved);
      expect(stays.counters["replication.partitions.restored"] ?? 0).toBe(0);
      expect(drainedExit).toEqual({ code: 0, signal: null });
      expect(drainedOutput).toContain("drained: every partition was handed over");
    },
    ROW_TIMEOUT_MS,
  );
});
