/**
 * Host affinity across fetch nodes (docs/cluster.md, "Fetch node"): with 2 frontier nodes and 2 fetch nodes,
 * every request to a host comes from one fetch node, the one rendezvous hashing of the host's key picks among
 * the live fetch nodes (each fetch node sends its own User-Agent, so the test web's log says which). One fetch
 * node killed with SIGKILL mid-crawl: its hosts move to the other; what waited in its inbox is taken by its
 * heir (a task it was fetching comes back after the ack wait, shortened here as in the redelivery tests),
 * every page is fetched, once except those in flight at the kill (at most one a host), and the harness judges
 * the whole log for politeness with no tolerance. A third fetch node joining then takes its share: from when the frontier nodes know it, each
 * host's requests come from the node the choice over the two live ones names.
 */
import { describe, expect, test } from "bun:test";
import { FetcherChoice } from "../../../core/cluster/index.ts";
import { logClock, type RequestRecord } from "../../testweb/index.ts";
import { fetchCounts, missing, pageRequests, urlOf, useCluster, waitForIdle, waitUntil, type Coordinator } from "./harness.ts";

const cluster = useCluster();
const HOSTS = 30;
const MIN_GAP_MS = 500;
const ACK_WAIT_MS = 4_000;
const agentOf = (id: string) => `AffinityTest-${id}/1.0 (+https://crawler.example/bot)`;
const FETCHERS = ["fetch-1", "fetch-2", "fetch-3"];
const nodeOf = (r: RequestRecord) => FETCHERS.find((id) => r.headers["user-agent"] === agentOf(id));

/** Waits until every frontier node sends its hosts' tasks to `n` fetch nodes (its `fetchNodesKnown` gauge). */
async function frontiersKnow(c: Coordinator, n: number): Promise<void> {
  await waitUntil(
    async () => {
      const frontiers = (await c.nodes()).filter((v) => v.role === "frontier");
      return frontiers.length === 2 && frontiers.every((v) => v.gauges["fetchNodesKnown"] === n);
    },
    { timeoutMs: 30_000, what: `both frontier nodes to know ${n} live fetch nodes`, detail: async () => JSON.stringify(await c.nodes()) },
  );
}

/** Hosts whose requests in [from, to) came from more than one fetch node, or from another than `expected` names. */
function strays(requests: readonly RequestRecord[], from: number, to: number, expected: (host: string) => string | undefined) {
  const out: Record<string, string[]> = {};
  const byHost = new Map<string, Set<string>>();
  for (const r of requests) {
    if (r.startedAt < from || r.startedAt >= to) continue;
    const set = byHost.get(r.host) ?? new Set();
    set.add(nodeOf(r) ?? "?");
    byHost.set(r.host, set);
  }
  for (const [host, nodes] of byHost) if (nodes.size !== 1 || !nodes.has(expected(host) ?? "")) out[host] = [...nodes];
  return { strays: out, hosts: byHost };
}

describe("cluster: host affinity", () => {
  test("each host is fetched by one fetch node; a node killed gives its hosts to the other, a node joining takes its share; nothing lost, pages fetched twice only if in flight at the kill", async () => {
    const web = await cluster.web({ hosts: HOSTS, pagesPerHost: 60, linksPerPage: 6, pageBytes: 2000 });
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      frontierArgs: ["--min-gap", `${MIN_GAP_MS}ms`, "--sitemaps", "off"],
      fetcherArgsOf: (id) => ["--user-agent", agentOf(id)],
    });
    const c = roles.coordinator;
    await cluster.setFetchAckWait(roles.services, ACK_WAIT_MS);
    await frontiersKnow(c, 2);
    const homes = Array.from({ length: HOSTS }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(homes);
    const keyOf = (host: string) => new URL(web.url(host)).host;
    const before = new FetcherChoice(["fetch-1", "fetch-2"]);
    await c.seed(homes);

    // A sixth of the pages, then fetch-1 dies.
    await waitUntil(() => pageRequests(web).length >= expected.pages.size / 6, {
      timeoutMs: 60_000,
      what: "a sixth of the pages",
      procs: roles.procs(),
    });
    const victim = roles.fetchers.get("fetch-1")!;
    victim.signal("SIGKILL");
    await victim.waitExit(10_000);
    const killedAt = logClock();
    roles.fetchers.delete("fetch-1");
    const p1 = strays(web.requests, 0, killedAt, (h) => before.of(keyOf(h)));
    if (Object.keys(p1.strays).length > 0) {
      // Why a host moved: a node counted gone by its heir (heartbeat 5 s old), or in local trouble.
      const why = (await c.nodes())
        .filter((n) => n.role === "fetcher")
        .map((n) => [n.id, Object.fromEntries(Object.entries(n.counters).filter(([k]) => /inboxes|fetch\.local|heartbeat/.test(k)))]);
      console.log(JSON.stringify({ strays: p1.strays, why }));
    }
    expect(p1.strays).toEqual({});
    // Both nodes had hosts: the choice spread them.
    const victimHosts = [...p1.hosts].filter(([, n]) => n.has("fetch-1")).map(([h]) => h);
    expect(victimHosts.length).toBeGreaterThan(0);
    expect(victimHosts.length).toBeLessThan(p1.hosts.size);

    // The frontier nodes stop sending to it once its heartbeat lapses; its hosts go on at fetch-2.
    await frontiersKnow(c, 1);
    await waitUntil(() => victimHosts.every((h) => web.requestsTo(h).some((r) => r.startedAt > killedAt && r.completed)), {
      timeoutMs: 30_000,
      what: "every host of the dead node to be fetched again after the kill",
      procs: roles.procs(),
    });
    const joiningAt = logClock();
    await roles.startFetcher("fetch-3");
    await frontiersKnow(c, 2);
    const joinedAt = logClock();
    await waitForIdle(c, web, { timeoutMs: 120_000, procs: roles.procs() });

    // Between the kill and the join, only fetch-2 asked anything.
    const p2 = strays(web.requests, killedAt, joiningAt, () => "fetch-2");
    expect(p2.strays).toEqual({});
    // Once both frontier nodes know fetch-3 (a task each host had out may still go to fetch-2: 2 s for it), each
    // host is asked by the node the choice over the live two names, and fetch-3 took a share.
    const after = new FetcherChoice(["fetch-2", "fetch-3"]);
    const p3 = strays(web.requests, joinedAt + 2_000, Number.POSITIVE_INFINITY, (h) => after.of(keyOf(h)));
    expect(p3.strays).toEqual({});
    expect([...p3.hosts.values()].filter((n) => n.has("fetch-3")).length).toBeGreaterThan(0);

    // Every page fetched; a page fetched twice was in flight at fetch-1 when it died (its request made, its
    // result never published), asked again by a survivor after the kill: at most one such page per host (a
    // host has one task out at a time). A request the kill cut off was fetch-1's, before the kill.
    const pages = pageRequests(web);
    expect(missing(expected.pages, fetchCounts(pages).keys())).toEqual([]);
    const byUrl = new Map<string, RequestRecord[]>();
    for (const r of pages) byUrl.set(urlOf(r), [...(byUrl.get(urlOf(r)) ?? []), r]);
    const twice = [...byUrl.values()].filter((rs) => rs.length > 1);
    for (const [first, second, ...more] of twice) {
      expect([nodeOf(first!), first!.startedAt < killedAt]).toEqual(["fetch-1", true]);
      expect([nodeOf(second!) !== "fetch-1", second!.startedAt > killedAt, more.length]).toEqual([true, true, 0]);
    }
    expect(new Set(twice.map((rs) => rs[0]!.host)).size).toBe(twice.length);
    expect(pages.filter((r) => !r.completed && (nodeOf(r) !== "fetch-1" || r.startedAt > killedAt))).toEqual([]);
    console.log(
      JSON.stringify({
        hosts: HOSTS,
        pages: pages.length,
        victimHosts: victimHosts.length,
        cutOff: pages.filter((r) => !r.completed).length,
        fetchedTwice: twice.length,
        fetch3Hosts: [...p3.hosts.values()].filter((n) => n.has("fetch-3")).length,
      }),
    );
  }, 240_000);
});
