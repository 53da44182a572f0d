/**
 * Each host's sitemaps, on their own: a sitemap offered is kept once and makes its host active, one of a
 * host another frontier owns goes there, and a host's sitemaps are handed out oldest first and counted down.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { ActiveHosts } from "./active-hosts.ts";
import { FrontierState, type FrontierOptions } from "./frontier-state.ts";
import { HostSitemaps } from "./host-sitemaps.ts";
import { Screening } from "./screening.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12);
const HOUR = 3_600_000;

function setup(extra: Partial<FrontierOptions> = {}) {
  const clock = { now: T0 };
  const state = new FrontierState({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 1_000),
    policy: { ...DEFAULT_POLICY, robotsMaxAgeMs: 24 * HOUR },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => "t",
    ...extra,
  });
  const hosts = new ActiveHosts(state);
  const sitemaps = new HostSitemaps(state, hosts, new Screening(state));
  const offer = (refs: DiscoveredUrl[]) => state.store.tx(() => sitemaps.offer(refs, clock.now));
  return { state, hosts, sitemaps, offer, clock };
}

const ref = (url: string): DiscoveredUrl => ({ url, host: hostKeyOf(url), depth: 0, redirectHops: 0, sitemap: { grants: [] } });

describe("host sitemaps", () => {
  test("host sitemaps - a sitemap offered makes its host active with no URL queued, and counts as work", () => {
    const { state, hosts, offer } = setup();
    offer([ref("http://a.test/sitemap.xml")]);
    expect(hosts.get("a.test")?.sitemaps).toBe(1);
    expect(hosts.get("a.test")?.queued).toBe(0);
    expect(state.waiting.size).toBe(1);
    expect(state.totalSitemaps).toBe(1);
    expect(state.counters.toJSON()).toEqual({ "sitemap.queued": 1 });
  });

  test("host sitemaps - offered again while pending, or soon after it was read, a sitemap is not queued again", () => {
    const { state, hosts, sitemaps, offer, clock } = setup();
    offer([ref("http://a.test/sitemap.xml")]);
    offer([ref("http://a.test/sitemap.xml")]);
    const entry = hosts.get("a.test")!;
    const row = sitemaps.next(entry)!;
    state.store.tx(() => state.store.sitemaps.finish(row, "read", clock.now));
    sitemaps.finished(entry);
    clock.now += HOUR;
    offer([ref("http://a.test/sitemap.xml")]);
    expect(state.counters.toJSON()).toEqual({ "sitemap.queued": 1, "sitemap.known": 2 });
    expect(state.totalSitemaps).toBe(0);
    // Half a robots.txt lifetime after its read, it is read again.
    clock.now += 12 * HOUR;
    offer([ref("http://a.test/sitemap.xml")]);
    expect(state.totalSitemaps).toBe(1);
  });

  test("host sitemaps - a host's sitemaps are handed out oldest first and counted down as they are finished", () => {
    const { state, hosts, sitemaps, offer, clock } = setup();
    offer([ref("http://a.test/first.xml")]);
    clock.now += 1;
    offer([ref("http://a.test/second.xml")]);
    const entry = hosts.get("a.test")!;
    const first = sitemaps.next(entry)!;
    expect(first.url).toBe("http://a.test/first.xml");
    state.store.tx(() => state.store.sitemaps.finish(first, "failed", clock.now));
    sitemaps.finished(entry);
    expect(sitemaps.next(entry)?.url).toBe("http://a.test/second.xml");
    expect([entry.sitemaps, state.totalSitemaps]).toEqual([1, 1]);
  });

  test("host sitemaps - sitemaps of hosts another frontier owns are sent to it; those of partitions not served stay in the store", async () => {
    const sent: DiscoveredUrl[] = [];
    const mine = partitionOf("a.test", 16);
    const unserved = ["b.test", "c.test", "d.test"].find((h) => partitionOf(h, 16) !== mine)!;
    const { state, hosts, sitemaps, offer } = setup({
      serving: [mine],
      forward: {
        owns: (host) => host === "a.test" || host === unserved,
        send: async (urls) => {
          for (const u of urls) sent.push(u);
        },
      },
    });
    const forwards: Promise<void>[] = [];
    const kept = sitemaps.route([ref("http://a.test/s.xml"), ref("http://other.test/s.xml")], forwards, new Counters());
    await Promise.all(forwards);
    expect(kept.map((u) => u.url)).toEqual(["http://a.test/s.xml"]);
    expect(sent.map((u) => u.url)).toEqual(["http://other.test/s.xml"]);
    offer([ref(`http://${unserved}/s.xml`)]);
    expect(hosts.get(unserved)).toBeUndefined();
    expect(state.totalSitemaps).toBe(1);
  });
});
