/**
 * `--politeness-key` across 2 frontier nodes and 2 fetch nodes: 200 names under 4 registrable domains that
 * resolve (--hosts-file, no proxy) to 2 loopback addresses. Judged from the test web's own log, no tolerance:
 *
 *  - domain: the ring places every host of a domain on one frontier node (by the domain's partition), which
 *    keeps the domain's one request at a time and its gap, whichever fetch node sends the requests;
 *  - ip: the region's address gate (in Redis, shared by both fetch nodes) keeps one request at a time and
 *    the gap per server address.
 *
 * With each, the cap per address holds too, every page is fetched once, and both fetch nodes did the work.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import { registrableDomain } from "../../../core/scope/index.ts";
import { unusedPort } from "../../../kit/net/index.ts";
import { judgeAddresses, judgeKeys, sharedServerHosts, type RequestRecord } from "../../testweb/index.ts";
import { fetchCounts, missing, pageRequests, repeated, useCluster, waitForIdle } from "./harness.ts";

const cluster = useCluster();

const ADDRESSES = ["127.0.0.2", "127.0.0.3"];
const MIN_GAP_MS = 50;
const MAX_PER_ADDRESS = 2;
const ADDRESS_GAP_MS = 15;
const agentOf = (id: string) => `PolitenessKeyTest-${id}/1.0 (+https://crawler.example/bot)`;

async function crawlWith(key: "domain" | "ip") {
  const port = await unusedPort();
  const shared = sharedServerHosts(200, ADDRESSES, port, 20);
  const web = await cluster.web({ hosts: 0, extraHosts: shared.hosts, addresses: ADDRESSES, port });
  const hostsFile = join(cluster.tempDir(), "hosts");
  writeFileSync(hostsFile, shared.hostsFile);
  const gap = ["--min-gap", `${MIN_GAP_MS}ms`, "--gap-fetch-multiplier", "0"];
  const roles = await cluster.roles({
    web,
    frontiers: ["frontier-1", "frontier-2"],
    fetchers: ["fetch-1", "fetch-2"],
    coordinatorArgs: ["--politeness-key", key],
    frontierArgs: ["--sitemaps", "off", "--politeness-key", key, ...gap],
    directFetch: true,
    fetcherArgs: [
      "--politeness-key",
      key,
      ...gap,
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
  // The judge reads each arrival when this process gets to it: Redis and NATS go below it, as the roles are.
  for (const pid of roles.services.pids()) setPriority(pid, 10);
  const c = roles.coordinator;
  await c.seed(shared.homePages);
  await waitForIdle(c, web, { timeoutMs: 150_000, procs: roles.procs() });

  expect(missing(shared.pages, fetchCounts(pageRequests(web)).keys())).toEqual([]);
  expect(repeated(pageRequests(web))).toEqual({});
  const addresses = judgeAddresses(web.requests, { maxInFlight: MAX_PER_ADDRESS, gapMs: ADDRESS_GAP_MS });
  expect(addresses.violations.slice(0, 20)).toEqual([]);
  // Both fetch nodes sent requests (each has its own User-Agent).
  expect([...new Set(web.requests.map((r) => r.headers["user-agent"]))].sort()).toEqual([agentOf("fetch-1"), agentOf("fetch-2")]);
  const nodes = await c.nodes();
  return { web, nodes, roles };
}

describe("cluster: --politeness-key", () => {
  test("domain: one frontier node owns each domain's 50 hosts and keeps its one request at a time and gap across 2 fetch nodes", async () => {
    const { web, nodes, roles } = await crawlWith("domain");
    const verdict = judgeKeys(web.requests, (r: RequestRecord) => registrableDomain(r.host), MIN_GAP_MS);
    expect(verdict.violations.slice(0, 20)).toEqual([]);
    expect([...verdict.hosts.values()]).toEqual([50, 50, 50, 50]);
    // Were a domain's hosts split between the two frontier nodes, each would keep its own half's turn and the
    // judge above would see two requests to the domain at once: the placement by domain is what it checks.
    const frontiers = nodes.filter((n) => n.role === "frontier");
    // Both frontier nodes served partitions (the 4 domains may land on either, but the ring used both).
    expect(frontiers.every((n) => n.partitions.length > 0)).toBe(true);

    // A node started with another key would place hosts elsewhere: it refuses to start and says why.
    const services = { nats: roles.services.nats, redis: roles.services.redis };
    const frontier = cluster.frontier({ ...services, id: "frontier-3", dataDir: cluster.tempDir(), args: ["--politeness-key", "host"] });
    const fetcher = cluster.fetcher({ ...services, id: "fetch-3", web, direct: true, args: ["--politeness-key", "ip"] });
    for (const [p, mine] of [
      [frontier, "host"],
      [fetcher, "ip"],
    ] as const) {
      expect((await p.waitExit(20_000)).code).not.toBe(0);
      expect(p.output()).toContain(`--politeness-key ${mine} differs from the cluster's ring (domain)`);
    }
  }, 240_000);

  test("ip: both fetch nodes keep one request at a time and the gap per server address, through the region's shared gate", async () => {
    const { web, nodes } = await crawlWith("ip");
    const verdict = judgeKeys(web.requests, (r: RequestRecord) => r.localAddress, MIN_GAP_MS);
    expect(verdict.violations.slice(0, 20)).toEqual([]);
    expect([...verdict.hosts.values()]).toEqual([100, 100]);
    // Redis answered every time: no pass was given unguarded.
    const fetchers = nodes.filter((n) => n.role === "fetcher");
    expect(fetchers.map((n) => n.counters["fetcher.address.unguarded"] ?? 0)).toEqual([0, 0]);
  }, 240_000);
});
