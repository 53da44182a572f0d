/**
 * Fault: a frontier node killed (SIGKILL) mid-crawl and started again at once with the same id and data
 * directory (what `cluster up` does after 0.5 s), well within the coordinator's death timeout (60 s here, so
 * a slow start on a loaded box does not turn the restart into a loss). Its partitions stay where they were;
 * it reopens its SQLite store and continues every partition from its own rows (the replica is not read:
 * the store is the newest copy), its queued URLs among them (Redis would never admit them a second time).
 * Nothing is lost, pages fetched twice are at most those in flight at the kill, every host it loads waits a
 * full gap from its restart, so none waits longer than the outage and its gap.
 */
import { describe, expect, test } from "bun:test";
import { REGION, type RingView } from "../e2e/cluster/harness.ts";
import { askedHostsOwnedBy, crawlThroughFault, describeRun, expectRefetchesOnlyInFlight, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";
import { logClock } from "../testweb/index.ts";

const cluster = useCluster();
const VICTIM = "frontier-1";

describe("fault: a frontier node killed and restarted", () => {
  test(
    "a frontier node killed mid-crawl and restarted with its id and data dir: it continues from its store, nothing lost, duplicates at most in flight",
    async () => {
      let ringBefore: RingView | undefined;
      let oldPid = 0;
      let victimHosts = new Set<string>();
      const run = await crawlThroughFault(cluster, {
        roles: { coordinatorArgs: ["--death-timeout", "60s"] },
        async inject(roles, web) {
          ringBefore = await roles.coordinator.ring();
          const victim = roles.frontiers.get(VICTIM)!;
          oldPid = victim.pid;
          victim.signal("SIGKILL");
          const exit = await victim.waitExit(10_000);
          const killedAt = logClock();
          expect(exit.signal).toBe("SIGKILL");
          // Every host of the victim that could have had a fetch out: a page's task comes after its host's
          // robots.txt, so such a host had a request before the kill.
          victimHosts = askedHostsOwnedBy(
            web.requests.filter((r) => r.startedAt < killedAt),
            ringBefore!,
            VICTIM,
          );
          // Back when it has joined again (its record live, started after the kill).
          await roles.startFrontier(VICTIM);
          return { killedAt, backAt: logClock() };
        },
      });
      console.log(describeRun("frontier node killed and restarted", run));
      const c = run.roles.coordinator;
      const node = (await c.nodes()).find((n) => n.id === VICTIM)!;
      const owned = ringBefore!.regions[REGION]!.owners.filter((o) => o === VICTIM).length;
      console.log(
        JSON.stringify({ owned, victimHosts: victimHosts.size, counters: pick(node.counters, "replication.partitions.", "fetch.pages") }),
      );
      // What the kill can cost, exactly: the task each of the victim's hosts had out, or whose result it had
      // received and not yet committed (the host's one fetch stays in flight until then), is fetched again
      // after the restart. So a page fetched twice is the victim's, one per host at most. (Tasks out counted
      // before the kill missed results waiting for their group commit: seen 9 twice with 7 counted.)
      expectRefetchesOnlyInFlight(run, victimHosts);
      expect(run.roles.frontiers.get(VICTIM)!.pid).not.toBe(oldPid);
      // The partitions never moved: the restart beat the death timeout.
      const ringAfter = await c.ring();
      expect(ringAfter.epoch).toBe(ringBefore!.epoch);
      expect(ringAfter.regions).toEqual(ringBefore!.regions);
      // Every partition it owns continued from its own disk; none was rebuilt from the replica.
      expect(node.counters["replication.partitions.continued"]).toBe(owned);
      expect(node.counters["replication.partitions.restored"] ?? 0).toBe(0);
      // The restarted process did the rest of its hosts' work, from what its store held.
      expect(node.counters["fetch.pages"] ?? 0).toBeGreaterThan(0);
    },
    ROW_TIMEOUT_MS,
  );
});

function pick(counters: Record<string, number>, ...prefixes: string[]): Record<string, number> {
  return Object.fromEntries(Object.entries(counters).filter(([k]) => prefixes.some((p) => k.startsWith(p))));
}
