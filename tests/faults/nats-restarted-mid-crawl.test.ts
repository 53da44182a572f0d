/**
 * Fault: the region's nats-server killed (SIGKILL) mid-crawl and started again 5 s later on the same port
 * with the same store directory (what `cluster up` and the fleet do). Every role reconnects on its own.
 * Fetch nodes keep the links and results they could not publish and publish them when NATS is back, then
 * ack (the issue measured them thrown away: pages fetched again 60 s later, their hosts stalled 60 s);
 * frontier nodes publish again, under the same ids, the tasks they could not publish, and re-offer as new
 * copies the tasks they had out. Nothing is lost, no
 * host waits longer than the outage, its gap and the reconnect, and pages fetched twice are at most those
 * in flight at the fault.
 *
 * A restarted server can hand a task out again without counting it as a redelivery: a task whose publish
 * was stored but whose ack died with the server is published again under the same id, and the restarted
 * server, which rebuilds its duplicate window only from the messages it still holds, stores it twice once
 * the first copy was fetched and acked; and a server that lost its consumer's latest state delivers a task
 * handed out just before the kill again with a delivery count of 1. Either used to be fetched by a second
 * fetch node while the frontier had already dispatched the host's next task (seen about one run in two: 8
 * pages fetched twice with 7 in flight, two requests 110 ms short of the 200 ms gap). The fetch claims in
 * the region's Redis (fetch-node/copy-claims.ts) now drop a task done and another copy of a task under way,
 * and space an uncounted repeat until the attempt under way must have ended: in 15 runs since, no page was
 * fetched twice and no gap was short.
 *
 * A task delivered just before the kill can also be lost on the wire while the server counts it as out: it
 * came back only after the `fetchers` ack wait (60 s), its host stalled that long (once in those 15 runs).
 * Frontier nodes now re-offer their unanswered tasks as new copies when their connection is back
 * (frontier-node/node/dispatcher.ts); the claims let one copy be fetched. In 10 runs since: nothing lost,
 * nothing fetched twice, no violation, no stalled host (6-17 tasks re-offered per run, every re-offered
 * copy dropped unfetched: no run lost a delivery with the server, so a re-offered copy being fetched is
 * shown by fetch-node/node.test.ts and frontier-node/node/dispatcher.test.ts, not here). Two runs of the 15 also saw hosts wait 10.6-14.9 s
 * where 10.3-10.6 s were allowed, cause not traced; not seen since.
 *
 * Since frontier nodes fence themselves (frontier-node/node/self-fence.ts), an outage this long suspends
 * them: no heartbeat can be written while NATS is down, and past three quarters of the death timeout a node
 * cannot know whether the coordinator moved its partitions, so it hands nothing out until it has beaten and
 * re-read the ring (seen: both nodes suspended 4.0-4.1 s, resuming once the cluster state answered again).
 * That is the price of never dispatching for a partition another node may own, and it may add to a host's
 * wait: the row allows 8 s beyond the outage and the gap instead of 5 (seen once in a full suite run: 11.05
 * s waited where 10.25 s were allowed), and prints how often the nodes suspended.
 */
import { describe, expect, test } from "bun:test";
import { crawlThroughFault, describeRun, expectNothingLost, useCluster } from "./harness.ts";

const cluster = useCluster();

describe("fault: NATS restarted", () => {
  test("nats-server killed and restarted on its port and store 5 s later: nothing lost, no host stalled, duplicates at most in flight", async () => {
    const run = await crawlThroughFault(cluster, {
      inject: (roles) => roles.services.restartNats(5_000),
      slackMs: 8_000,
    });
    console.log(describeRun("nats restarted", run));
    console.log(
      JSON.stringify({
        outboxHeld: run.counters.fetcher["fetcher.outbox.held"] ?? 0,
        publishedLate: run.counters.fetcher["fetcher.outbox.published-late"] ?? 0,
        redelivered: run.counters.fetcher["fetcher.tasks.redelivered"] ?? 0,
        tasksRepublished: run.counters.frontier["node.tasks.republished"] ?? 0,
        tasksReoffered: run.counters.frontier["node.tasks.reoffered"] ?? 0,
        lostFetches: run.counters.frontier["frontier.lost-fetches"] ?? 0,
        duplicateCopiesDropped: run.counters.fetcher["fetcher.tasks.duplicate-copy-dropped"] ?? 0,
        doneDropped: run.counters.fetcher["fetcher.tasks.done-dropped"] ?? 0,
        redeliveredUnannounced: run.counters.fetcher["fetcher.tasks.redelivered-unannounced"] ?? 0,
        claimsUnavailable: run.counters.fetcher["fetcher.claims.unavailable"] ?? 0,
        fenceSuspensions: run.counters.frontier["node.fence.suspended"] ?? 0,
      }),
    );
    expectNothingLost(run);
    // The frontier's lost-fetch lease never had to free a host: every result came back.
    expect(run.counters.frontier["frontier.lost-fetches"] ?? 0).toBe(0);
  }, 360_000);
});
