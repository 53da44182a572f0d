/**
 * Fault: the region's redis-server killed (SIGKILL) mid-crawl and started again 5 s later on its port
 * with no persistence, so it comes back EMPTY: every seen-set and content fingerprint gone. Redis is a
 * cache, not the truth: each frontier node finds its partitions lost (the seen script answers "lost",
 * never "not seen"), rebuilds them from its store before admitting more, and the crawl goes on. Nothing
 * is fetched again that was fetched before (the issue measured the whole web crawled twice); fetch tasks
 * that met the outage store their pages instead of failing; every error logged says what failed and why.
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: Redis restarted empty", () => {
  test("Redis killed and restarted empty mid-crawl: partitions are rebuilt from the stores, nothing is fetched twice beyond what was in flight", async () => {
    const run = await crawlThroughFault(cluster, {
      inject: (roles) => roles.services.restartRedis(5_000),
    });
    console.log(describeRun("redis restarted empty", run));
    expectNothingLost(run);
    // The loss was seen and repaired, not missed: the frontier nodes rebuilt partitions that had URLs.
    expect(run.counters.frontier["seen.partitions-rebuilt"] ?? 0).toBeGreaterThan(0);
    expect(run.counters.frontier["seen.rebuilt-urls"] ?? 0).toBeGreaterThan(0);
  }, 360_000);
});
