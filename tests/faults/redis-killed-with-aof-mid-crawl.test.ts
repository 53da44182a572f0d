/**
 * Fault: the region's redis-server, running with AOF as `cluster up` and the fleet run it, killed
 * (SIGKILL) mid-crawl and started again 5 s later on its port and directory: it replays its AOF and comes
 * back with every seen-set: the loss guard finds no partition lost (a kill loses nothing Redis had
 * acknowledged), so none is rebuilt. Admissions wait while it is gone and resume after: nothing is lost,
 * and no more pages are fetched again than tasks were in flight.
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: Redis with AOF killed", () => {
  test("Redis with AOF killed and started again 5 s later mid-crawl: no partition found lost or rebuilt, nothing lost, extra fetches at most the tasks in flight", async () => {
    const run = await crawlThroughFault(cluster, {
      services: { redisAppendOnly: true },
      inject: (roles) => roles.services.restartRedis(5_000),
    });
    console.log(describeRun("redis with AOF killed", run));
    expectNothingLost(run);
    expect(run.counters.frontier["seen.partitions-rebuilt"] ?? 0).toBe(0);
    expect(run.counters.frontier["seen.lost.lagging"] ?? 0).toBe(0);
  }, 360_000);
});
