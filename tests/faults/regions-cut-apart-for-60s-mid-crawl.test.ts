/**
 * Fault: the link between two regions cut for a minute mid-crawl, every server and node running all along.
 * Region-1 (frontier-1, fetch-1, its nats-server and redis-server, the coordinator) and region-2
 * (frontier-2, fetch-2, its own servers, the odd-numbered hosts) are one supercluster: their nats-servers
 * are joined by a gateway, and region-2's nodes reach the cluster state (membership, the ring, kept in
 * region-1's NATS cluster) only through it. Each nats-server runs in a network namespace of its own; the
 * cut drops, silently, every packet region-2's server sends to region-1's, so the gateway hangs both ways
 * while every node still reaches its own region's servers.
 *
 * What the cut does: JetStream's meta group spans both servers, so neither side has a majority and no
 * JetStream API request that needs the meta leader is answered anywhere. Region-1 still publishes, pulls,
 * acks and writes its heartbeats (streams and the cluster-state bucket work without the meta leader), but
 * the coordinator cannot read the ring, so it is blind for the whole cut and writes nothing (which also
 * leaves region-2's partitions where they were). Region-2 cannot beat, so its frontier node fences itself
 * by its own clock (frontier-node/node/self-fence.ts) and hands nothing out until it has beaten and
 * re-read the ring after the heal. The fault lasts until the cluster state answers again (the gateways
 * back and the meta group's leader elected).
 *
 * What must hold, from the test web's log: region-1 crawls on through the cut as if nothing happened (its
 * hosts wait no longer than their gap and the slack); region-2 resumes on its own once the state answers,
 * finding its partitions still its own; links found in one region for the other wait in the finding
 * region and arrive after the heal. Nothing lost, no politeness violation (no tolerance), pages fetched
 * twice only on region-2's hosts, one per host at most (a fetch in flight at the cut), no host waiting
 * beyond the fault, its gap and the slack.
 */
import { describe, expect, test } from "bun:test";
import { REGION, waitUntil, type RingView } from "../e2e/cluster/harness.ts";
import { logClock } from "../testweb/index.ts";
import {
  crawlThroughFault,
  describeRun,
  expectRefetchesOnlyInFlight,
  partitionFor,
  ROW_TIMEOUT_MS,
  SECOND_REGION,
  secondRegionHosts,
  serverAddresses,
  SIZE,
  useCluster,
  waitsAcross,
} from "./harness.ts";

const cluster = useCluster();
const CUT_MS = 60_000;
const MIN_GAP_MS = 1_000;
const SLACK_MS = 5_000;

describe("fault: the gateway between two regions cut for 60 s", () => {
  test(
    "two regions cut apart for a minute: region-1 crawls on undisturbed, region-2 fences itself and resumes after the heal; nothing lost, polite, duplicates at most in flight",
    async () => {
      const regionTwo = new Set(secondRegionHosts(SIZE.hosts));
      let ringBefore: RingView | undefined;
      let regionTwoHosts = new Set<string>();
      let regionTwoFencedAfterMs = 0;
      let stateBackAfterHealMs = 0;
      const run = await crawlThroughFault(cluster, {
        minGapMs: MIN_GAP_MS,
        slackMs: SLACK_MS,
        twoRegions: true,
        async inject(roles, web) {
          ringBefore = await roles.coordinator.ring();
          const natsTwo = roles.services.regions[SECOND_REGION]!.natsNetns!;
          const cut = await partitionFor(natsTwo, [serverAddresses(roles, web).nats], CUT_MS, async (cutAt) => {
            regionTwoHosts = new Set(web.requests.filter((r) => r.startedAt < cutAt && regionTwo.has(r.host)).map((r) => r.host));
            // The fault is only this one if region-2 loses the cluster state meanwhile: its frontier node,
            // unable to beat, fences itself.
            const frontierTwo = roles.frontiers.get("frontier-2")!;
            await waitUntil(() => frontierTwo.output().includes("suspended dispatching"), {
              timeoutMs: CUT_MS,
              what: "frontier-2 to fence itself across the cut",
            });
            regionTwoFencedAfterMs = logClock() - cutAt;
          });
          // The link is back; the fault lasts until the cluster state answers again. The cut split
          // JetStream's meta group (one server per region: neither side a majority), and without its
          // leader the ring cannot be read from anywhere (the coordinator is blind, and writes nothing,
          // for the whole cut); after the heal the gateways reconnect and the group elects a leader
          // (measured: 8 s), and only then can region-2's fenced node re-read the ring and resume.
          await waitUntil(
            () =>
              roles.coordinator.ring().then(
                () => true,
                () => false,
              ),
            {
              timeoutMs: 60_000,
              what: "the cluster state to answer again after the heal",
            },
          );
          stateBackAfterHealMs = logClock() - cut.backAt;
          return { killedAt: cut.killedAt, backAt: logClock() };
        },
      });
      console.log(describeRun("regions cut apart 60 s", run));
      const { killedAt, backAt } = run.window;
      const regionOne = run.web.requests.filter((r) => !regionTwo.has(r.host));
      const duringCut = (rs: typeof regionOne) => rs.filter((r) => r.startedAt >= killedAt && r.startedAt < backAt).length;
      // Region-1 owes the cut nothing: its hosts' waits across it are judged as if there were no outage.
      const regionOneWaits = waitsAcross(regionOne, { killedAt, backAt: killedAt }, { slackMs: SLACK_MS, minGapMs: MIN_GAP_MS });
      const regionTwoRequests = run.web.requests.filter((r) => regionTwo.has(r.host));
      const fence = run.roles.frontiers
        .get("frontier-2")!
        .output()
        .split("\n")
        .filter((l) => l.includes("suspended dispatching"));
      console.log(
        JSON.stringify({
          ringBefore: ringBefore!.epoch,
          regionTwoFencedAfterS: regionTwoFencedAfterMs / 1000,
          stateBackAfterHealS: stateBackAfterHealMs / 1000,
          ringAfter: (await run.roles.coordinator.ring()).epoch,
          regionOneDuringCut: duringCut(regionOne),
          regionTwoDuringCut: duringCut(regionTwoRequests),
          regionTwoFirstAfterBackS: Number(
            (
              (regionTwoRequests.filter((r) => r.startedAt >= backAt).reduce((m, r) => Math.min(m, r.startedAt), Infinity) - backAt) /
              1000
            ).toFixed(1),
          ),
          regionOneLongestWaitS: regionOneWaits.reduce((m, w) => Math.max(m, w.waitedMs), 0) / 1000,
          fenced: fence.length,
          twice: run.twice,
          violations: run.violations.slice(0, 10),
          longestWait: run.longestWait,
        }),
      );
      // The fault is this one: each region owned its own hosts, and the cut landed mid-crawl in both.
      expect(new Set(ringBefore!.regions[SECOND_REGION]?.owners)).toEqual(new Set(["frontier-2"]));
      expect(new Set(ringBefore!.regions[REGION]?.owners)).toEqual(new Set(["frontier-1"]));
      expect(duringCut(regionOne)).toBeGreaterThan(0);
      expect(regionOneWaits.filter((w) => w.waitedMs > w.allowedMs)).toEqual([]);
      expectRefetchesOnlyInFlight(run, regionTwoHosts);
    },
    ROW_TIMEOUT_MS + CUT_MS,
  );
});
