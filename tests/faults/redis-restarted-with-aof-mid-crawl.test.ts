/**
 * Fault: the region's redis-server, running with AOF as `cluster up` and the fleet run it, killed
 * (SIGKILL) mid-crawl and started again 5 s later on its port and directory: it replays its AOF and comes
 * back with every seen-set. Admissions wait while it is gone and resume after; nothing needs rebuilding
 * (the loss guard finds every partition whole: a kill loses nothing Redis had acknowledged), nothing is
 * lost, and nothing is fetched twice beyond what was in flight.
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: Redis restarted with AOF", () => {
  test("Redis with AOF killed and restarted mid-crawl: it comes back whole, admissions wait and resume, nothing lost or fetched twice", async () => {
    const run = await crawlThroughFault(cluster, {
      services: { redisAppendOnly: true },
      inject: (roles) => roles.services.restartRedis(5_000),
    });
    console.log(describeRun("redis restarted with AOF", run));
    expectNothingLost(run);
    expect(run.counters.frontier["seen.partitions-rebuilt"] ?? 0).toBe(0);
    expect(run.counters.frontier["seen.lost.lagging"] ?? 0).toBe(0);
  }, 360_000);
});
