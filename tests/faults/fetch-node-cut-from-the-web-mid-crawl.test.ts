/**
 * Fault: a real network partition between one of two fetch nodes and the web, for 20 s mid-crawl. The node
 * runs in a network namespace of its own (tests/support/netns.ts); the cut drops, silently, every packet it
 * sends to the test web (its egress proxy) while it still reaches NATS and Redis: a request under way hangs,
 * a new connection gets no answer to its SYN. Nothing here is the hosts' fault, and the node cannot fetch
 * anything, so it must neither book failures against hosts (a connect timeout or a response timeout would
 * mark a host unreachable or double its gap, and retry its page) nor hold tasks it cannot do: its trouble is
 * local (engine/fetch LocalTrouble, cause proxy-unreachable), each task goes back untouched, the other
 * fetch node carries the crawl, and the cut node resumes by itself once a probe gets through.
 *
 * Checked from the test web's log: the common verdict (nothing lost, politeness with no tolerance, extra
 * fetches at most the tasks in flight, no host waiting longer than the cut, its gap and the slack); the other
 * node fetched pages during the cut and the cut node none; the cut node fetched pages again after it. From
 * the nodes' counters: no fetch error booked against any host (`fetch.error.*` of the frontier nodes: the
 * synthetic web has no failing host, so any error is the cut's), and the cut node counted its trouble as local.
 */
import { describe, expect, test } from "bun:test";
import { pageRequests } from "../e2e/cluster/harness.ts";
import type { RequestRecord } from "../testweb/index.ts";
import { crawlThroughFault, describeRun, expectNothingLost, partitionFor, ROW_TIMEOUT_MS, serverAddresses, useCluster } from "./harness.ts";

const cluster = useCluster();
const VICTIM = "fetch-1";
const OTHER = "fetch-2";
const CUT_MS = 20_000;
const userAgentOf = (id: string) => `PoliteCrawler/0.1 (fault suite; ${id})`;
const nodeOf = (r: RequestRecord) => [VICTIM, OTHER].find((id) => r.headers["user-agent"] === userAgentOf(id));

describe("fault: a fetch node cut from the web for 20 s", () => {
  test(
    "a fetch node cut from the web (but not from NATS and Redis) for 20 s: no host blamed, the other node carries on, nothing lost, polite",
    async () => {
      const run = await crawlThroughFault(cluster, {
        // At a 1 s gap the crawl is about 35 s long: pages are left when the cut ends.
        minGapMs: 1_000,
        netns: [VICTIM],
        roles: { fetcherArgsOf: (id) => ["--user-agent", userAgentOf(id)] },
        inject: (roles, web) => partitionFor(roles.netnsOf(VICTIM)!, [serverAddresses(roles, web).web], CUT_MS),
      });
      console.log(describeRun("fetch node cut from the web 20 s", run));
      const { killedAt, backAt } = run.window;
      const pages = pageRequests(run.web);
      const during = pages.filter((r) => r.startedAt > killedAt && r.startedAt < backAt);
      const victimAfter = pages.filter((r) => r.startedAt > backAt && nodeOf(r) === VICTIM);
      const nodes = await run.roles.coordinator.nodes();
      const victimCounters = nodes.find((n) => n.id === VICTIM)?.counters ?? {};
      const errors = Object.fromEntries(Object.entries(run.counters.frontier).filter(([k]) => k.startsWith("fetch.error.")));
      console.log(
        JSON.stringify({
          duringByNode: {
            [VICTIM]: during.filter((r) => nodeOf(r) === VICTIM).length,
            [OTHER]: during.filter((r) => nodeOf(r) === OTHER).length,
          },
          victimAfter: victimAfter.length,
          errorsBookedAgainstHosts: errors,
          victim: Object.fromEntries(Object.entries(victimCounters).filter(([k]) => /^fetch\.local|^fetcher\.tasks/.test(k))),
          // The host that waited longest across the cut: its requests around it (seconds after the cut began, node).
          longestWait: run.longestWait && {
            ...run.longestWait,
            requests: run.web
              .requestsTo(run.longestWait.host)
              .filter((r) => r.startedAt > killedAt - 3_000 && r.startedAt < backAt + 10_000)
              .map((r) => `${r.path} ${((r.startedAt - killedAt) / 1000).toFixed(1)} ${nodeOf(r)}`),
          },
        }),
      );
      expectNothingLost(run);
      // The other node carried the crawl through the cut; the cut node reached no host meanwhile, and
      // fetched again after it.
      expect(during.filter((r) => nodeOf(r) === OTHER).length).toBeGreaterThan(0);
      expect(during.filter((r) => nodeOf(r) === VICTIM)).toEqual([]);
      expect(victimAfter.length).toBeGreaterThan(0);
      // No host was blamed for the cut, and the cut node knew its trouble was its own.
      expect(errors).toEqual({});
      expect(victimCounters["fetch.local.proxy-unreachable"] ?? 0).toBeGreaterThan(0);
    },
    ROW_TIMEOUT_MS,
  );
});
