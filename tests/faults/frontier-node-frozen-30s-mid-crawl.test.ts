/**
 * Fault: a frontier node frozen (SIGSTOP, as a long GC pause or a VM migration would) for 30 s mid-crawl,
 * three times the coordinator's death timeout (10 s by default), then thawed (SIGCONT). Meanwhile the
 * coordinator declares it dead and gives its partitions to the other node without a handoff (the new owner
 * rebuilds them from the replica). When it thaws, its overdue timers fire at once, and before it may
 * learn the new ring its dispatch loop would hand out tasks for hosts the other node now serves: two nodes
 * asking one host, pages fetched twice (issue 27 measured 113-253 twice and up to 158 requests short of
 * the gap on `cluster up`). A frozen node must fence itself by its own clock instead: it sees that its last
 * heartbeat written is older than the death timeout allows, stops dispatching for every partition, beats,
 * re-reads the ring and serves only what it still gives it (frontier-node/node/self-fence.ts).
 *
 * Checked from the test web's own log: nothing lost, pages fetched twice only on the frozen node's hosts,
 * one per host at most (what was in flight there at the freeze, as for a node killed), no politeness
 * violation (no tolerance), no host stalled beyond the outage, its gap and 5 s. The
 * row runs at a 1 s gap, so the crawl goes on through the freeze and pages are left when it thaws.
 */
import { describe, expect, test } from "bun:test";
import { REGION, waitUntil, type RingView } from "../e2e/cluster/harness.ts";
import {
  askedHostsOwnedBy,
  crawlThroughFault,
  describeRun,
  expectRefetchesOnlyInFlight,
  freezeFor,
  ROW_TIMEOUT_MS,
  useCluster,
} from "./harness.ts";

const cluster = useCluster();
const VICTIM = "frontier-1";
const FROZEN_MS = 30_000;

describe("fault: a frontier node frozen for 30 s", () => {
  test(
    "a frontier node frozen mid-crawl for longer than the death timeout loses its partitions and, thawed, never acts on them: nothing lost, polite, duplicates at most in flight",
    async () => {
      let ringBefore: RingView | undefined;
      let ringDuring: RingView | undefined;
      let victimHosts = new Set<string>();
      const run = await crawlThroughFault(cluster, {
        minGapMs: 1_000,
        async inject(roles, web) {
          const c = roles.coordinator;
          ringBefore = await c.ring();
          // Frozen for FROZEN_MS in all (the fault is a length of time, not a state to wait for), thawed even
          // when a wait inside fails, so the teardown never finds the node stopped.
          return freezeFor(roles.frontiers.get(VICTIM)!.pid, FROZEN_MS, async (killedAt) => {
            victimHosts = askedHostsOwnedBy(
              web.requests.filter((r) => r.startedAt < killedAt),
              ringBefore!,
              VICTIM,
            );
            // The fault is only this one if the coordinator takes the victim's partitions while it is frozen.
            await waitUntil(
              async () => {
                ringDuring = await c.ring();
                return ringDuring.epoch > ringBefore!.epoch && !ringDuring.regions[REGION]!.owners.includes(VICTIM);
              },
              { timeoutMs: FROZEN_MS, what: "the frozen node's partitions to move to the other node" },
            );
          });
        },
      });
      console.log(describeRun("frontier node frozen for 30 s", run));
      const lines = run.roles.frontiers.get(VICTIM)!.output().split("\n");
      const fenced = lines.filter((l) => l.includes("suspended dispatching"));
      // What the thawed node did first, in order: the suspension, the rings it applied, what it dropped, the resume.
      const from = Math.max(0, lines.indexOf(fenced[0] ?? ""));
      const afterThaw = lines
        .slice(from)
        .filter((l) => /frontier-node\.(fence|partitions)"/.test(l))
        .slice(0, 8)
        .map((l) => l.slice(0, 520));
      console.log(
        JSON.stringify({
          ringBefore: ringBefore!.epoch,
          ringDuring: ringDuring?.epoch,
          victimHosts: victimHosts.size,
          // When each page fetched twice was asked, in seconds after the freeze began: before it, then by
          // the node that rebuilt the partition (after the death timeout), or after the thaw.
          twice: Object.fromEntries(
            Object.keys(run.twice).map((url) => [
              url,
              run.web.requests
                .filter((r) => `http://${r.host}${r.path}` === url)
                .map((r) => Number(((r.startedAt - run.window.killedAt) / 1000).toFixed(1))),
            ]),
          ),
          violations: run.violations.slice(0, 10),
        }),
      );
      console.log(afterThaw.join("\n"));
      // What the freeze can cost, counted as for a frontier node killed: to the node that rebuilt the frozen
      // node's partitions from the replica, each of its hosts may have had one fetch out, or its last result
      // applied and not yet in the replica (the journal's 250 ms linger never ran out while frozen), fetched
      // again; so a page fetched twice is on one of those hosts, one per host at most. The tasks counted out
      // just before the freeze miss the second kind: seen 11 twice with 1 counted, each asked 0.1-0.3 s
      // before the freeze and again 25.6 s after it, by the rebuilding node. Then nothing lost, no
      // violation, no host stalled.
      expectRefetchesOnlyInFlight(run, victimHosts);
      // The thawed node fenced itself (one warning per suspension) and is back in the ring.
      expect(fenced.length).toBeGreaterThan(0);
      const ringAfter = await run.roles.coordinator.ring();
      expect(ringAfter.regions[REGION]!.owners).toContain(VICTIM);
    },
    ROW_TIMEOUT_MS,
  );
});
