/**
 * Fault: one of two fetch nodes frozen (SIGSTOP) for 30 s mid-crawl, then thawed (SIGCONT): a long GC pause
 * or a VM migration. Its tasks stay out (its inbox's ack wait, 60 s, is longer than the freeze, and each
 * host has one fetch at a time, so no other node asks those hosts meanwhile); the other fetch node takes
 * every other task, and, as its heir once its heartbeat has lapsed, what waited in its inbox undelivered
 * (fetch-node/inbox-heirs.ts); thawed, the node pulls its inbox again and the heir lets go.
 *
 * So that the freeze surely lands on a request under way (the synthetic web answers in a millisecond), the
 * row seeds LATE_HOST at the fault, whose home page is answered 2 s after it is asked, and freezes the
 * node that asked (each fetch node sends its own User-Agent). The answer arrives while the node is frozen
 * and waits in its socket; thawed 30 s later, the node finds its 20 s response timeout long overdue as
 * well. The host answered in 2 s: the page must be stored as fetched, once, and the host not blamed (a
 * timeout booked against it would fetch the page again and stretch its gap).
 *
 * Then the suite's verdict: nothing lost, politeness with no tolerance, extra fetches at most the tasks in
 * flight, no host waiting longer than the freeze, its gap and 5 s.
 */
import { describe, expect, test } from "bun:test";
import type { IncomingMessage } from "node:http";
import { pageRequests, waitUntil } from "../e2e/cluster/harness.ts";
import type { HostBehaviour, RequestRecord, TestWeb } from "../testweb/index.ts";
import { crawlThroughFault, describeRun, expectNothingLost, freezeFor, ROW_TIMEOUT_MS, useCluster } from "./harness.ts";

const cluster = useCluster();
const FETCHERS = ["fetch-1", "fetch-2"];
const LATE_HOST = "answered-late.test";
const ANSWER_AFTER_MS = 2_000;
const FROZEN_MS = 30_000;
const userAgentOf = (id: string) => `PoliteCrawler/0.1 (fault suite; ${id})`;
const nodeOf = (r: RequestRecord) => FETCHERS.find((id) => r.headers["user-agent"] === userAgentOf(id));

/** A home page answered ANSWER_AFTER_MS after it is asked; anything else 404. */
function answeredLate(): HostBehaviour {
  return {
    description: `/ is answered ${ANSWER_AFTER_MS} ms after it is asked; other paths 404`,
    robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
    serve(_req: IncomingMessage, res, ctx) {
      if (ctx.path !== "/") {
        res.writeHead(404, { "content-type": "text/html" });
        res.end("<!doctype html><title>404</title>");
        return;
      }
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<!doctype html><title>late</title><p>answered late</p>");
      }, ANSWER_AFTER_MS);
    },
  };
}

describe("fault: a fetch node frozen for 30 s", () => {
  test(
    "a fetch node frozen for 30 s with a request under way: the answer that came meanwhile is kept, the host not blamed, nothing lost, polite, extra fetches at most in flight",
    async () => {
      let victim = "";
      let duringFreeze = 0;
      const lateRequests = (web: TestWeb) => web.requestsTo(LATE_HOST).filter((r) => r.path === "/");
      const run = await crawlThroughFault(cluster, {
        // At a 2 s gap the two thirds left take the other node about 40 s, so pages are left when the
        // freeze ends (at 1 s it finished them during the freeze).
        minGapMs: 2_000,
        roles: { fetcherArgsOf: (id) => ["--user-agent", userAgentOf(id)] },
        extraHosts: { [LATE_HOST]: answeredLate() },
        async inject(roles, web) {
          await roles.coordinator.seed([web.url(LATE_HOST)]);
          await waitUntil(() => lateRequests(web).length > 0, {
            timeoutMs: 30_000,
            what: `a fetch node to ask ${LATE_HOST} for /`,
            procs: roles.procs(),
          });
          victim = nodeOf(lateRequests(web)[0]!) ?? "";
          expect(FETCHERS).toContain(victim);
          return freezeFor(roles.fetchers.get(victim)!.pid, FROZEN_MS, async (frozenAt) => {
            // The answer is written while the node is frozen: it waits in the node's socket.
            await waitUntil(() => lateRequests(web)[0]!.completed, {
              timeoutMs: 10_000,
              what: `${LATE_HOST}/ answered`,
            });
            // The crawl goes on through the other fetch node meanwhile.
            await Bun.sleep(FROZEN_MS - 10_000);
            duringFreeze = pageRequests(web).filter((r) => r.startedAt > frozenAt && nodeOf(r) !== victim).length;
          });
        },
      });
      console.log(describeRun("fetch node frozen 30 s", run));
      const late = lateRequests(run.web);
      const explanation = await run.roles.coordinator.crawlctlJson<{
        state: string;
        lastStatus?: number;
      }>(["url", "explain", run.web.url(LATE_HOST)]);
      console.log(
        JSON.stringify({
          victim,
          duringFreeze,
          lateRequests: late.length,
          explanation,
        }),
      );
      // The other node went on during the freeze.
      expect(duringFreeze).toBeGreaterThan(0);
      // The page answered in 2 s was asked once and stored as fetched: no timeout was booked against its host.
      expect(late.map((r) => [nodeOf(r), r.status, r.completed])).toEqual([[victim, 200, true]]);
      expect(explanation).toMatchObject({ state: "fetched", lastStatus: 200 });
      expectNothingLost(run);
    },
    ROW_TIMEOUT_MS,
  );
});
