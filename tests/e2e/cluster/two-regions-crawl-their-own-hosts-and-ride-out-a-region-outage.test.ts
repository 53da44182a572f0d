/**
 * Two regions, end to end, as `cluster up --regions 2` runs them: a nats-server per region (each its own
 * JetStream cluster, joined by gateways), a redis-server, a frontier node and a fetch node per region, and
 * region rules that send half the hosts to region-2. Each region's streams live in its own NATS cluster;
 * each region's frontier node owns every partition of its region; each host is fetched only by its own
 * region's fetch node (the WARC files of each fetch node hold only its region's hosts).
 *
 * Mid-crawl region-2 loses its NATS server (frozen with SIGSTOP, as a server that stops answering, then
 * killed; the launcher starts it again on its port over its store), and later its Redis the same way.
 * Meanwhile region-1 keeps crawling (its hosts get requests while region-2's server is frozen), and after
 * each outage region-2 resumes by itself. The feed of fetched pages (CRAWL_PAGES) is placed in region-2's
 * NATS before the crawl starts, so that outage is also the feed's: region-1's frontier keeps applying its
 * results (they wait in its feed outbox), and in the end the feed holds every expected page. In the end every expected page was fetched, a page fetched twice
 * is one that may have been in flight at an outage, and no host was hit too soon (tolerance 0).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats, JetStreamPageFeed, type NatsConnection } from "../../../adapters/nats/index.ts";
import { streams } from "../../../core/cluster/index.ts";
import { FEED_STREAM } from "../../../core/feed/index.ts";
import { readCdxj } from "../embedded/harness.ts";
import { freeze } from "../../support/freeze.ts";
import {
  fetchCounts,
  missing,
  pageRequests,
  repeated,
  urlOf,
  useCluster,
  waitForIdle,
  waitForPages,
  waitUntil,
  type ClusterUp,
} from "./harness.ts";
import type { TestWeb } from "../../testweb/index.ts";
import { logClock } from "../../testweb/index.ts";

const cluster = useCluster();
const GAP_MS = 250;
const HOSTS = 8;
const REGION_2_HOSTS = ["site1.test", "site3.test", "site5.test", "site7.test"];
const regionOf = (host: string) => (REGION_2_HOSTS.includes(host) ? "region-2" : "region-1");

/** Requests for pages of `region`'s hosts that started after `since`. */
const pagesOf = (web: TestWeb, region: string, since = 0) =>
  pageRequests(web).filter((r) => regionOf(r.host) === region && r.startedAt > since);

/**
 * Region-2 loses server `id`: frozen first (SIGSTOP: it holds its connections and answers nothing) until
 * region-1 has fetched `during` more pages, then killed; the launcher starts it again, and region-2 must
 * fetch again by itself. Returns when the outage began.
 */
async function regionTwoLoses(c: ClusterUp, web: TestWeb, id: string, during: number, whileFrozen?: () => Promise<void>): Promise<number> {
  const { pid } = c.readFile().processes.find((p) => p.id === id)!;
  await freeze(pid!);
  const at = logClock();
  await waitUntil(() => pagesOf(web, "region-1", at).length >= during, {
    timeoutMs: 30_000,
    what: `region-1 to keep crawling while ${id} is frozen`,
    procs: [c.proc],
    detail: () => `region-1 pages since: ${pagesOf(web, "region-1", at).length}, region-2: ${pagesOf(web, "region-2", at).length}`,
  });
  await whileFrozen?.();
  process.kill(pid!, "SIGKILL");
  const again = await c.waitRestarted(id, pid!);
  const back = logClock();
  expect(again.restarts).toBe(1);
  await waitUntil(() => pagesOf(web, "region-2", back).length > 0, {
    timeoutMs: 120_000,
    what: `region-2 to crawl again after ${id} came back`,
    procs: [c.proc],
  });
  return at;
}

/** The URLs of the default job's records in the feed of fetched pages. */
async function feedUrls(nc: NatsConnection): Promise<Set<string>> {
  const feed = await JetStreamPageFeed.open(nc);
  const urls = new Set<string>();
  for (let after = 0; ; ) {
    const page = await feed.read("default", after, 1000);
    if (page.records.length === 0) return urls;
    for (const r of page.records) urls.add(r.url);
    after = page.next;
  }
}

describe("cluster: two regions", () => {
  test("each region crawls its own hosts with its own servers, and region-1 keeps crawling while region-2's NATS and Redis are lost and restored", async () => {
    const web = await cluster.web({ hosts: HOSTS, pagesPerHost: 60, linksPerPage: 8, pageBytes: 2000 });
    const seeds = Array.from({ length: HOSTS }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const c = await cluster.up({
      web,
      regions: 2,
      frontiers: 2,
      fetchers: 2,
      regionRules: `region-2=${REGION_2_HOSTS.join(",")}`,
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
    });
    expect(c.file.regions).toEqual(["region-1", "region-2"]);
    const byId = (id: string) => c.file.processes.find((p) => p.id === id)!;
    expect([byId("frontier-1").region, byId("fetch-1").region, byId("frontier-2").region, byId("fetch-2").region]).toEqual([
      "region-1",
      "region-1",
      "region-2",
      "region-2",
    ]);

    // Each region's streams are in its own NATS cluster.
    const nc = await connectNats(`nats://127.0.0.1:${byId("nats-region-1").ports["client"]}`, "two-regions test");
    try {
      const jsm = await jetstreamManager(nc);
      for (const region of ["region-1", "region-2"])
        for (const name of [streams.urls(region), streams.fetch(region), streams.results(region)])
          expect({ name, cluster: (await jsm.streams.info(name)).cluster?.name }).toEqual({ name, cluster: region });
    } finally {
      await nc.close();
    }
    // The feed's stream was made by whichever process opened it first, in its region: made again, empty,
    // in region-2's NATS cluster, so region-2's outage below is the feed's too.
    const nc2 = await connectNats(`nats://127.0.0.1:${byId("nats-region-2").ports["client"]}`, "two-regions test (region-2)");
    try {
      const jsm = await jetstreamManager(nc2);
      const { config } = await jsm.streams.info(FEED_STREAM);
      await jsm.streams.delete(FEED_STREAM);
      await jsm.streams.add({ ...config, placement: { cluster: "region-2", tags: [] } });
      expect((await jsm.streams.info(FEED_STREAM)).cluster?.name).toBe("region-2");
    } finally {
      await nc2.close();
    }
    const ring = await c.ring();
    expect(new Set(ring.regions["region-1"]!.owners)).toEqual(new Set(["frontier-1"]));
    expect(new Set(ring.regions["region-2"]!.owners)).toEqual(new Set(["frontier-2"]));

    await c.seed(seeds);
    await waitUntil(() => pagesOf(web, "region-2").length >= 30 && pagesOf(web, "region-1").length >= 30, {
      timeoutMs: 60_000,
      what: "both regions to be crawling",
      procs: [c.proc],
    });
    // While the feed's region is frozen, region-1's frontier node shows its page records waiting in its outbox.
    const frontier1 = (await c.nodes()).find((n) => n.id === "frontier-1")!.httpAddress;
    const outboxed = async () => {
      const text = await (await fetch(`${frontier1}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
      return Number(/^crawler_feed_outbox_records\{[^}]*\} (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
    };
    const outboxWhileFrozen = () =>
      waitUntil(async () => (await outboxed()) > 0, {
        timeoutMs: 20_000,
        what: "frontier-1's feed outbox to hold records",
        procs: [c.proc],
      });
    const outages = [await regionTwoLoses(c, web, "nats-region-2", 12, outboxWhileFrozen)];
    outages.push(await regionTwoLoses(c, web, "redis-region-2", 12));
    expect(pagesOf(web, "region-1").length).toBeLessThan(expected.pages.size / 2); // region-1 was still at work

    await waitForPages(web, expected.pages, { timeoutMs: 240_000, what: "every expected page", procs: [c.proc] });
    await waitForIdle(c, web, { timeoutMs: 120_000, procs: [c.proc] });
    const pages = pageRequests(web);
    expect(missing(expected.pages, fetchCounts(pages).keys())).toEqual([]);
    const twice = repeated(pages);
    const firstFetch = new Map<string, number>();
    for (const r of pages) if (!firstFetch.has(urlOf(r))) firstFetch.set(urlOf(r), r.startedAt);
    // At most the pages in flight at an outage: one per host of region-2, first fetched before it began.
    console.log(`pages fetched twice: ${JSON.stringify(twice)}`);
    expect(Object.keys(twice).filter((u) => regionOf(new URL(u).host) !== "region-2")).toEqual([]);
    expect(Object.keys(twice).filter((u) => !outages.some((at) => firstFetch.get(u)! < at))).toEqual([]);
    expect(Object.keys(twice).length).toBeLessThanOrEqual(REGION_2_HOSTS.length * outages.length);
    expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);

    // The records the frontier nodes kept in their outboxes while the feed's region was away reached it.
    const feedNc = await connectNats(`nats://127.0.0.1:${byId("nats-region-1").ports["client"]}`, "two-regions test (feed)");
    try {
      let inFeed = new Set<string>();
      const allInFeed = async () => {
        inFeed = await feedUrls(feedNc);
        return missing(expected.pages, inFeed).length === 0;
      };
      await waitUntil(allInFeed, {
        timeoutMs: 60_000,
        what: "every expected page in the feed",
        procs: [c.proc],
        detail: () => `missing from the feed: ${missing(expected.pages, inFeed).length}`,
      });
      await waitUntil(async () => (await outboxed()) === 0, {
        timeoutMs: 30_000,
        what: "frontier-1's feed outbox to drain",
        procs: [c.proc],
      });
    } finally {
      await feedNc.close();
    }

    // Which fetch node fetched what: each one's WARC index lists only its own region's hosts. (Stopped
    // first, so every WARC file is finished.)
    c.proc.signal("SIGTERM");
    expect(await c.proc.waitExit(120_000)).toEqual({ code: 0, signal: null });
    for (const [id, region] of [
      ["fetch-1", "region-1"],
      ["fetch-2", "region-2"],
    ] as const) {
      const hosts = new Set(readCdxj(join(c.dir, id)).map((e) => new URL(e.url).host));
      expect(hosts.size).toBeGreaterThan(0);
      expect([...hosts].filter((h) => regionOf(h) !== region)).toEqual([]);
    }
  }, 600_000);
});
