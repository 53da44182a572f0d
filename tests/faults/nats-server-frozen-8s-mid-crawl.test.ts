/**
 * Fault: the region's nats-server frozen (SIGSTOP) for 8 s mid-crawl, then thawed (SIGCONT): a server
 * that stops answering without closing a connection (a hung disk under its JetStream store, a VM paused).
 * Unlike a kill, no client is told anything: publishes, pulls, acks and heartbeats simply get no answer
 * until the thaw, and then the server works through what queued up on its sockets. Every role must wait
 * rather than give up on what it holds: fetch nodes keep the outputs they could not publish, frontier
 * nodes fence themselves once their heartbeat cannot be written (they cannot know whether the coordinator
 * moved their partitions) and resume after re-reading the ring. Nothing is lost, politeness holds with no
 * tolerance, extra fetches are at most the tasks in flight, and no host waits longer than the freeze, its
 * gap and the reconnect.
 */
import { describe, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, freezeFor, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: nats-server frozen for 8 s", () => {
  test(
    "nats-server frozen mid-crawl for 8 s and thawed: nothing lost, polite, no host stalled, extra fetches at most in flight",
    async () => {
      const run = await crawlThroughFault(cluster, {
        // At a 1 s gap the crawl is about 30 s long, so pages are left when the freeze ends.
        minGapMs: 1_000,
        inject: (roles) => freezeFor(roles.services.nats.pid, 8_000),
        slackMs: 8_000,
      });
      console.log(describeRun("nats-server frozen 8 s", run));
      console.log(
        JSON.stringify({
          fenceSuspensions: run.counters.frontier["node.fence.suspended"] ?? 0,
          outboxHeld: run.counters.fetcher["fetcher.outbox.held"] ?? 0,
          redelivered: run.counters.fetcher["fetcher.tasks.redelivered"] ?? 0,
          tasksReoffered: run.counters.frontier["node.tasks.reoffered"] ?? 0,
          lostFetches: run.counters.frontier["frontier.lost-fetches"] ?? 0,
        }),
      );
      expectNothingLost(run);
    },
    ROW_TIMEOUT_MS,
  );
});
