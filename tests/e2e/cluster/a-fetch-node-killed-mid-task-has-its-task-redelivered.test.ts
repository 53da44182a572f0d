/**
 * Crash of a fetch node mid-task: the task it was working on (a page whose server had not answered yet)
 * was never acked, so JetStream redelivers it to the other fetch node, which fetches the page; the
 * frontier applies that one result. The frontier's own safety net (the fetch lease, 5 min by default)
 * is far away, so the second request can only come from the redelivery.
 *
 * Ack wait: the `fetchers` consumer waits 60 s before redelivering, and no role exposes that setting
 * (JetStreamBusOptions.fetchAckWaitMs exists, but no main.ts passes it). Rather than wait a minute, the
 * test shortens it on the running cluster, through the bus's own region setup, after every node has
 * started (each role's start would set it back to 60 s).
 */
import { describe, expect, test } from "bun:test";
import { useCluster, waitUntil } from "./harness.ts";
import { homePageHeldOnce, logClock } from "../../testweb/index.ts";

const cluster = useCluster();
const HOST = "stall.test";
const ACK_WAIT_MS = 2_000;

describe("cluster: a fetch node crashes", () => {
  test("a fetch node killed with SIGKILL mid-task has its task redelivered to the other fetch node", async () => {
    const web = await cluster.web({ hosts: 1, extraHosts: { [HOST]: homePageHeldOnce() } });
    const roles = await cluster.roles({ web, frontiers: ["frontier-1"], fetchers: ["fetch-1"] });
    const c = roles.coordinator;
    await c.seed([web.url(HOST)]);
    const pageRequests = () => web.requestsTo(HOST).filter((r) => r.path === "/");
    await waitUntil(() => pageRequests().length === 1, { timeoutMs: 20_000, what: `fetch-1 to request ${HOST}/`, procs: roles.procs() });

    await roles.startFetcher("fetch-2");
    await cluster.setFetchAckWait(roles.services, ACK_WAIT_MS);
    expect(pageRequests()[0]!.endedAt).toBe(Infinity); // still waiting for the answer
    const victim = roles.fetchers.get("fetch-1")!;
    victim.signal("SIGKILL");
    await victim.waitExit(10_000);
    const killedAt = logClock();

    // The killed node's request holds its server's next pass in the region's address gate until the node's
    // holder key lapses (10 s after its last beat; redis-address-gate.ts), since nothing will ever say it
    // arrived; a redelivered task that finds no pass meanwhile is given back unblamed and fetched after.
    await waitUntil(() => pageRequests().some((r) => r.completed && r.status === 200), {
      timeoutMs: 45_000,
      what: `the task for ${HOST}/ to be redelivered and fetched`,
      procs: [c.proc, roles.frontiers.get("frontier-1")!, roles.fetchers.get("fetch-2")!],
    });
    const [first, second] = pageRequests();
    expect(first!.completed).toBe(false); // the killed node's request, cut off by its death
    expect(second!.startedAt).toBeGreaterThan(killedAt);

    // fetch-2 counts the task as a redelivery; the frontier applies exactly one page result.
    await waitUntil(
      async () => {
        const nodes = await c.nodes();
        const fetch2 = nodes.find((n) => n.id === "fetch-2")!;
        const frontier = nodes.find((n) => n.id === "frontier-1")!;
        return (
          (fetch2.counters["fetcher.tasks.redelivered"] ?? 0) >= 1 &&
          (frontier.counters["fetch.pages"] ?? 0) === 1 &&
          frontier.gauges["inFlight"] === 0
        );
      },
      {
        timeoutMs: 10_000,
        what: "fetch-2's record to count the redelivery and the frontier's the page",
        detail: async () => JSON.stringify(await c.nodes()),
      },
    );
    // After its home page the host is asked for /sitemap.xml (its robots.txt names none; the test web answers
    // 404): that probe is the host's last request, so the host settles with its status.
    const hostView = async () =>
      (await c.adminJson<{ host: { queued: number; inFlight: boolean; lastStatus: number } }>(`/v1/hosts/${HOST}`)).host;
    await waitUntil(
      async () => web.requestsTo(HOST).some((r) => r.path === "/sitemap.xml" && r.completed) && !(await hostView()).inFlight,
      {
        timeoutMs: 10_000,
        what: `${HOST}'s /sitemap.xml probe to be answered and applied`,
        detail: async () => JSON.stringify(await hostView()),
      },
    );
    expect(await hostView()).toMatchObject({ queued: 0, inFlight: false, lastStatus: 404 });
    expect(pageRequests().length).toBe(2);
  }, 120_000);
});
