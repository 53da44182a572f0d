/**
 * Fault: the region's nats-server killed (SIGKILL) mid-crawl and started again 5 s later on the same port
 * with the same store directory (what `cluster up` and the fleet do). Every role reconnects on its own.
 * Fetch nodes keep the links and results they could not publish and publish them when NATS is back, then
 * ack (the issue measured them thrown away: pages fetched again 60 s later, their hosts stalled 60 s);
 * frontier nodes publish again, under the same ids, the tasks they could not publish. Nothing is lost, no
 * host waits longer than the outage, its gap and the reconnect, and pages fetched twice are at most those
 * in flight at the fault.
 *
 * OPEN, so not in `bun run test` (a `.open.ts` file; run it with
 * `bun test ./tests/faults/nats-restarted-mid-crawl.open.ts`): it fails about one run in two. A task whose
 * publish was stored but whose ack died with the server is published again under the same id, and the
 * restarted server, which rebuilds its duplicate window only from the messages it still holds, stores it
 * twice once the first copy was fetched and acked. Two fetch nodes can then fetch the same page at once:
 * seen as 8 pages fetched twice with 7 in flight, and two requests 110 ms short of the 200 ms gap. To fix:
 * a fetch must be claimed once per task id across the region's fetch nodes (or the frontier must not hand
 * out a republished task while the first copy may still be delivered).
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: NATS restarted", () => {
  test("nats-server killed and restarted on its port and store 5 s later: nothing lost, no host stalled, duplicates at most in flight", async () => {
    const run = await crawlThroughFault(cluster, {
      inject: (roles) => roles.services.restartNats(5_000),
    });
    console.log(describeRun("nats restarted", run));
    console.log(
      JSON.stringify({
        outboxHeld: run.counters.fetcher["fetcher.outbox.held"] ?? 0,
        publishedLate: run.counters.fetcher["fetcher.outbox.published-late"] ?? 0,
        redelivered: run.counters.fetcher["fetcher.tasks.redelivered"] ?? 0,
        tasksRepublished: run.counters.frontier["node.tasks.republished"] ?? 0,
        lostFetches: run.counters.frontier["frontier.lost-fetches"] ?? 0,
      }),
    );
    expectNothingLost(run);
    // The frontier's lost-fetch lease never had to free a host: every result came back.
    expect(run.counters.frontier["frontier.lost-fetches"] ?? 0).toBe(0);
  }, 360_000);
});
