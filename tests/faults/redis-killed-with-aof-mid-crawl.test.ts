/**
 * Fault: the region's redis-server, running with AOF as `cluster up` and the fleet run it, killed
 * (SIGKILL) mid-crawl and started again 5 s later on its port and directory: it replays its AOF and comes
 * back with the exact fingerprints and the fetch claims, but the seen-sets' writes are kept out of the AOF
 * (adapters/redis/seen-script.ts), so what it has of them is at most what an AOF rewrite caught: the loss
 * guard finds the partitions lost ("missing", or "restarted" when a rewrite kept an older filter), never
 * stale, and each frontier node rebuilds its partitions from its store. Admissions wait while it is gone and
 * while their partition is rebuilt, and resume after: nothing is lost, and no more pages are fetched again
 * than tasks were in flight.
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: Redis with AOF killed", () => {
  test("Redis with AOF killed and started again 5 s later mid-crawl: partitions found lost and rebuilt from the stores, nothing lost, extra fetches at most the tasks in flight", async () => {
    const run = await crawlThroughFault(cluster, {
      services: { redisAppendOnly: true },
      inject: (roles) => roles.services.restartRedis(5_000),
    });
    console.log(describeRun("redis with AOF killed", run));
    expectNothingLost(run);
    // The seen-sets were not in the AOF: the loss was seen and repaired, not missed.
    expect(run.counters.frontier["seen.partitions-rebuilt"] ?? 0).toBeGreaterThan(0);
    expect(run.counters.frontier["seen.rebuilt-urls"] ?? 0).toBeGreaterThan(0);
  }, 360_000);
});
