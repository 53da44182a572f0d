/**
 * Fault: the coordinator holding the lease frozen (SIGSTOP) for 20 s mid-crawl, then thawed (SIGCONT), with
 * a standby beside it. The lease (6 s) runs out during the freeze and the standby takes it; `crawlctl` given
 * both addresses is answered meanwhile. Thawed, the former leader's overdue tick must not act on what it
 * read before the freeze: it writes no ring (rebalancer.ts: a ring is written only while the lease renewal
 * that began the tick is younger than half the TTL on its own monotonic clock), finds the lease taken and
 * stands by. The crawl never waits for the coordinator: nothing lost, polite with no tolerance, extra
 * fetches at most the tasks in flight, no host stalled.
 */
import { describe, expect, test } from "bun:test";
import { waitUntil } from "../e2e/cluster/harness.ts";
import { logClock } from "../testweb/index.ts";
import { crawlThroughFault, describeRun, expectNothingLost, freezeFor, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";

const cluster = useCluster();
const FROZEN_MS = 20_000;

describe("fault: the leading coordinator frozen for 20 s", () => {
  test(
    "the lease-holding coordinator frozen for 20 s: the standby takes the lease and answers, the thawed one writes no ring and stands by, nothing lost",
    async () => {
      let answeredAfterMs = -1;
      let ringDuring = 0;
      let thawedAt = 0;
      const run = await crawlThroughFault(cluster, {
        minGapMs: 1_000,
        roles: { standbyCoordinator: true },
        async inject(roles) {
          const both = roles.coordinators!;
          const window = await freezeFor(roles.coordinator.proc.pid, FROZEN_MS, async (frozenAt) => {
            // crawlctl with both addresses: the frozen one never answers, the standby once it holds the lease.
            await waitUntil(async () => (await both.crawlctl(["status", "--json"], { timeoutMs: 20_000 })).code === 0, {
              timeoutMs: FROZEN_MS - 1_000,
              what: "crawlctl status answered during the freeze",
            });
            answeredAfterMs = logClock() - frozenAt;
            ringDuring = (await roles.standby!.ring()).epoch;
          });
          thawedAt = window.backAt;
          // The thawed coordinator's overdue tick has run when it says it stands by.
          await waitUntil(() => roles.coordinator.proc.output().includes("lost the coordinator lease"), {
            timeoutMs: 15_000,
            what: "the thawed coordinator to stand by",
          });
          return window;
        },
      });
      console.log(describeRun("leading coordinator frozen 20 s", run));
      const thawedLines = run.roles.coordinator.proc
        .output()
        .split("\n")
        .filter((l) => /wrote the ring|coordinator lease|not writing the ring/.test(l));
      console.log(JSON.stringify({ answeredAfterMs: Math.round(answeredAfterMs), ringDuring, thawedAt }));
      console.log(thawedLines.map((l) => l.slice(0, 300)).join("\n"));
      expect(answeredAfterMs).toBeGreaterThan(0);
      expect(answeredAfterMs).toBeLessThan(FROZEN_MS);
      // The standby holds the lease at the end and the former leader never wrote a ring after it lost it.
      expect((await run.roles.standby!.admin("/readyz")).status).toBe(200);
      expect((await run.roles.coordinator.admin("/readyz")).status).toBe(503);
      const lost = thawedLines.findIndex((l) => l.includes("lost the coordinator lease"));
      expect(lost).toBeGreaterThanOrEqual(0);
      expect(thawedLines.slice(lost).filter((l) => l.includes("wrote the ring"))).toEqual([]);
      expectNothingLost(run);
    },
    ROW_TIMEOUT_MS,
  );
});
