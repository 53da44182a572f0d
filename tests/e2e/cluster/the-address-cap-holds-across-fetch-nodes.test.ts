/**
 * The cap per server address across a region's fetch nodes: 2 frontier nodes and 2 fetch nodes crawl 200
 * names under 4 registrable domains that resolve (--hosts-file, no proxy) to 2 loopback addresses. Judged
 * from the test web's own log: never more than --max-per-address requests open at once at either address,
 * never two arrivals closer than --address-gap, although both fetch nodes fetched from both addresses (the
 * cap lives in the region's Redis, not in one node); every page fetched once, and the usual per-host
 * politeness (the harness judges it after the test). The dashboard's per-address section sums both fetch
 * nodes' boards: for each server, the passes are the requests that address received; and `url explain`,
 * answered by the frontier node that holds the URL's host, names the address its host is capped under, the
 * cap, and that server's state in the region's Redis.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import { unusedPort } from "../../../kit/net/index.ts";
import { judgeAddresses, sharedServerHosts } from "../../testweb/index.ts";
import type { Dashboard } from "../../../core/dashboard/index.ts";
import { fetchCounts, missing, pageRequests, repeated, useCluster, waitForIdle, waitUntil } from "./harness.ts";

const cluster = useCluster();

const ADDRESSES = ["127.0.0.2", "127.0.0.3"];
const MAX_PER_ADDRESS = 2;
const ADDRESS_GAP_MS = 15;
const agentOf = (id: string) => `AddressCapTest-${id}/1.0 (+https://crawler.example/bot)`;

describe("cluster: the cap per server address", () => {
  test("2 fetch nodes share the cap of each of 2 addresses serving 200 names: never over it, never closer than the gap", async () => {
    const port = await unusedPort();
    const shared = sharedServerHosts(200, ADDRESSES, port, 40);
    const web = await cluster.web({ hosts: 0, extraHosts: shared.hosts, addresses: ADDRESSES, port });
    const hostsFile = join(cluster.tempDir(), "hosts");
    writeFileSync(hostsFile, shared.hostsFile);
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      // The frontier nodes resolve names as the fetch nodes do and know the cap, for url explain.
      frontierArgs: [
        "--sitemaps",
        "off",
        "--hosts-file",
        hostsFile,
        "--allow-private-addresses",
        "--max-per-address",
        String(MAX_PER_ADDRESS),
        "--address-gap",
        `${ADDRESS_GAP_MS}ms`,
      ],
      directFetch: true,
      fetcherArgs: [
        "--hosts-file",
        hostsFile,
        "--allow-private-addresses",
        "--max-per-address",
        String(MAX_PER_ADDRESS),
        "--address-gap",
        `${ADDRESS_GAP_MS}ms`,
      ],
      fetcherArgsOf: (id) => ["--user-agent", agentOf(id)],
    });
    // The judge reads each arrival when this process gets to it: a test web kept off the CPU reads two
    // arrivals at once, however far apart they came. Redis and NATS go below it too, as the roles already are.
    for (const pid of roles.services.pids()) setPriority(pid, 10);
    const c = roles.coordinator;
    await c.seed(shared.homePages);
    await waitForIdle(c, web, { timeoutMs: 120_000, procs: roles.procs() });

    expect(missing(shared.pages, fetchCounts(pageRequests(web)).keys())).toEqual([]);
    expect(repeated(pageRequests(web))).toEqual({});
    const fetchers = (await c.nodes()).filter((n) => n.role === "fetcher");
    // Redis answered every time: no pass was given unguarded.
    expect(fetchers.map((n) => [n.id, n.counters["fetcher.address.unguarded"] ?? 0])).toEqual([
      ["fetch-1", 0],
      ["fetch-2", 0],
    ]);
    const verdict = judgeAddresses(web.requests, { maxInFlight: MAX_PER_ADDRESS, gapMs: ADDRESS_GAP_MS });
    expect(verdict.violations.slice(0, 20)).toEqual([]);
    for (const address of ADDRESSES) expect(verdict.mostOpen.get(address)).toBe(MAX_PER_ADDRESS);
    // Both fetch nodes sent requests to both addresses (each node has its own User-Agent): the cap held
    // between nodes, not only within one.
    for (const address of ADDRESSES) {
      const agents = new Set(web.requests.filter((r) => r.localAddress === address).map((r) => r.headers["user-agent"]));
      expect([...agents].sort()).toEqual([agentOf("fetch-1"), agentOf("fetch-2")]);
    }
    // The host board's address section, over both fetch nodes' records (each refreshed by its heartbeat).
    const want = JSON.stringify(ADDRESSES.map((a) => [`ip:${a}`, verdict.requests.get(a)]));
    let rows: Dashboard["hosts"]["addresses"] = [];
    await waitUntil(
      async () => {
        rows = (await c.adminJson<Dashboard>("/v1/dashboard")).hosts.addresses;
        return JSON.stringify(rows.map((r) => [r.server, r.passes]).sort()) === want;
      },
      {
        timeoutMs: 10_000,
        what: "the dashboard's address rows to count the requests each address received",
        detail: () => JSON.stringify(rows),
      },
    );
    for (const row of rows) expect(row.waits).toBeGreaterThan(0);
    const host = shared.homePages[0]!;
    const { explanation } = await c.adminJson<{ explanation: Record<string, unknown> }>(
      `/v1/urls/explain?url=${encodeURIComponent(`${host}about`)}`,
    );
    const address = shared.addressOf.get(new URL(host).hostname)!;
    expect(explanation).toMatchObject({
      maxPerAddress: MAX_PER_ADDRESS,
      addressGapMs: ADDRESS_GAP_MS,
      server: `ip:${address}`,
      serverStateKnown: true,
      serverHolders: 0,
      serverPasses: verdict.requests.get(address)!,
    });
  }, 180_000);
});
