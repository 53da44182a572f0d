/**
 * Fault: the region's redis-server frozen (SIGSTOP) for 8 s mid-crawl, then thawed (SIGCONT): the seen-sets,
 * the fetch claims and the content fingerprints stop answering, with every connection left open. Seen
 * checks wait (admission of new links pauses), fetch nodes cannot claim tasks (so they fetch nothing they
 * cannot first claim: a claim is what keeps a task from being fetched twice), and once the server answers
 * again everything resumes from where it was: its data was never lost, so no partition is found lost or
 * rebuilt. Nothing is lost, politeness holds with no tolerance, extra fetches are at most the tasks in
 * flight, and no host waits longer than the freeze, its gap and the reconnect.
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, freezeFor, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: redis-server frozen for 8 s", () => {
  test(
    "redis-server frozen mid-crawl for 8 s and thawed: no partition rebuilt, nothing lost, polite, no host stalled, extra fetches at most in flight",
    async () => {
      const run = await crawlThroughFault(cluster, {
        minGapMs: 1_000,
        inject: (roles) => freezeFor(roles.services.redis.pid, 8_000),
        slackMs: 8_000,
      });
      console.log(describeRun("redis-server frozen 8 s", run));
      console.log(
        JSON.stringify({
          claimsUnavailable: run.counters.fetcher["fetcher.claims.unavailable"] ?? 0,
          rebuilt: run.counters.frontier["seen.partitions-rebuilt"] ?? 0,
          lostFetches: run.counters.frontier["frontier.lost-fetches"] ?? 0,
        }),
      );
      expectNothingLost(run);
      // Frozen is not emptied: its data is all there when it answers again.
      expect(run.counters.frontier["seen.partitions-rebuilt"] ?? 0).toBe(0);
    },
    ROW_TIMEOUT_MS,
  );
});
