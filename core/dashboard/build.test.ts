import { describe, expect, test } from "bun:test";
import type { NodeRecord } from "../cluster/index.ts";
import type { HostRow } from "./types.ts";
import { buildDashboard, type DashboardMember } from "./build.ts";
import { outcomesOf } from "./outcomes.ts";
import { RateHistory } from "./rate-history.ts";

function host(name: string, fields: Partial<HostRow> = {}): HostRow {
  return {
    host: name,
    queued: 1,
    inFlight: false,
    gapMs: 1000,
    nextAllowedAt: 0,
    throttleMs: 0,
    throttles: 0,
    fetchMs: 10,
    fetches: 1,
    lastStatus: 200,
    lastError: "",
    robotsVerdict: "parse",
    robotsExpiresAt: 0,
    ...fields,
  };
}

function member(record: Partial<NodeRecord> & { id: string; role: NodeRecord["role"] }, state = "live"): DashboardMember {
  return {
    state,
    heartbeatAgeMs: 300,
    record: {
      region: "eu",
      runtime: "bun",
      status: "active",
      grpcAddress: "",
      httpAddress: "",
      startedAt: 0,
      heartbeatAt: 0,
      partitions: [],
      counters: {},
      gauges: {},
      ...record,
    },
  };
}

const gapWait = (count: number) => ({ "politeness.gap-wait-seconds": { bounds: [1, 2], counts: [count, 0, 0], count, sum: count } });

describe("dashboard", () => {
  test("dashboard - totals sum every record's counters and the serving frontiers' gauges", () => {
    const d = buildDashboard({
      source: "cluster",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 3, bytesPerSecond: 9 },
      members: [
        member({
          id: "f1",
          role: "frontier",
          counters: { "fetch.pages": 5, "fetch.bytes": 500, "fetch.status.200": 5 },
          gauges: { queued: 7, inFlight: 1 },
        }),
        member({ id: "f2", role: "frontier", counters: { "fetch.pages": 2, "fetch.status.503": 2 }, gauges: { queued: 100 } }, "dead"),
        member({ id: "x1", role: "fetcher", counters: { "fetcher.pages": 7 }, gauges: { inFlight: 4 } }),
      ],
    });
    expect(d.totals).toEqual({
      pages: 7,
      bytes: 500,
      queued: 7,
      scheduled: 0,
      inFlight: 1,
      errors: 2,
      pagesPerSecond: 3,
      bytesPerSecond: 9,
    });
    expect(d.outcomes).toMatchObject({ ok: 5, "5xx": 2 });
    expect(d.nodes.map((n) => `${n.id}:${n.state}:${n.pages}`)).toEqual(["f1:live:5", "f2:dead:2", "x1:live:7"]);
  });

  test("dashboard - rendering: the live pools' size and the frontiers' render counters", () => {
    const d = buildDashboard({
      source: "cluster",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 0, bytesPerSecond: 0 },
      members: [
        member({
          id: "f1",
          role: "frontier",
          counters: { "render.rendered": 4, "render.failed.crashed": 1, "render.failed.deadline": 2, "render.links-found": 9 },
        }),
        member({ id: "f2", role: "frontier", counters: { "render.as-received": 3, "render.browser-restarts": 1 } }),
        member({ id: "x1", role: "fetcher", gauges: { renderPool: 2 } }),
        member({ id: "x2", role: "fetcher", gauges: { renderPool: 4 } }, "dead"),
      ],
    });
    expect(d.rendering).toEqual({ poolSize: 2, rendered: 4, failed: 3, asReceived: 3, linksFound: 9, browserRestarts: 1 });
  });

  test("dashboard - host lists are merged across serving nodes, worst first, each row naming its node", () => {
    const board = (rows: { slowest?: HostRow[]; throttled?: HostRow[]; parked?: HostRow[] }) => ({
      board: { slowest: rows.slowest ?? [], throttled: rows.throttled ?? [], parked: rows.parked ?? [] },
      politeness: {
        activeHosts: 2,
        throttledHosts: rows.throttled?.length ?? 0,
        parkedHosts: rows.parked?.length ?? 0,
        largestGapMs: 0,
        largestGapHost: "",
      },
    });
    const d = buildDashboard({
      source: "cluster",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 0, bytesPerSecond: 0 },
      rows: 2,
      members: [
        member({
          id: "f1",
          role: "frontier",
          hosts: board({ slowest: [host("a", { fetchMs: 50 })], throttled: [host("t1", { throttleMs: 2000 })] }),
          histograms: gapWait(3),
        }),
        member({
          id: "f2",
          role: "frontier",
          region: "us",
          hosts: board({
            slowest: [host("b", { fetchMs: 900 }), host("c", { fetchMs: 20 })],
            parked: [host("p", { robotsVerdict: "disallow-all", robotsExpiresAt: 5 })],
          }),
          histograms: gapWait(4),
        }),
        member({ id: "f3", role: "frontier", hosts: board({ slowest: [host("gone", { fetchMs: 99_999 })] }) }, "dead"),
      ],
    });
    expect(d.hosts.slowest.map((h) => `${h.host}@${h.node}/${h.region}`)).toEqual(["b@f2/us", "a@f1/eu"]);
    expect(d.hosts.throttled.map((h) => h.host)).toEqual(["t1"]);
    expect(d.hosts.parked.map((h) => h.host)).toEqual(["p"]);
    expect(d.politeness).toMatchObject({ activeHosts: 4, throttledHosts: 1, parkedHosts: 1, waitedForGap: 7 });
    expect(d.histograms["politeness.gap-wait-seconds"]!.count).toBe(7);
  });

  test("dashboard - the ring shows each region's owners and the moves under way", () => {
    const d = buildDashboard({
      source: "cluster",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 0, bytesPerSecond: 0 },
      members: [],
      ring: { epoch: 4, partitions: 3, vnodes: 8, regions: { eu: { owners: ["f1", "f2", "f2"], previous: ["", "f1", ""] } } },
    });
    expect(d.ring).toEqual({
      epoch: 4,
      partitions: 3,
      regions: [{ region: "eu", owners: ["f1", "f2", "f2"], moves: [{ partition: 1, from: "f1", to: "f2" }] }],
    });
  });

  test("dashboard - waits for a server's pass and feeds add up over crawl's and the fetch nodes' counters", () => {
    const d = buildDashboard({
      source: "cluster",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 0, bytesPerSecond: 0 },
      members: [
        member({ id: "f1", role: "frontier", counters: { "feed.read": 2, "feed.items": 30, "feed.not-modified": 4 } }),
        member({ id: "x1", role: "fetcher", counters: { "fetcher.address.waits": 5, "fetcher.address.given-back": 1 } }),
        member({ id: "x2", role: "fetcher", counters: { "fetcher.address.waits": 2 } }),
      ],
    });
    expect(d.politeness).toMatchObject({ waitedForServer: 7, givenBackForServer: 1 });
    expect(d.feeds).toEqual({ read: 2, items: 30, notModified: 4 });
  });

  test("dashboard - the host board's address section merges every live process's rows by server, busiest first", () => {
    const row = (server: string, passes: number, waits: number, givenBack: number, longestWaitMs: number, at: number) => ({
      server,
      passes,
      waits,
      givenBack,
      longestWaitMs,
      since: at,
      lastAt: at + 100,
    });
    const d = buildDashboard({
      source: "cluster",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 0, bytesPerSecond: 0 },
      rows: 2,
      members: [
        member({ id: "x1", role: "fetcher", addresses: [row("ip:10.0.0.1", 50, 9, 1, 400, 10), row("ip:10.0.0.2", 80, 3, 0, 90, 10)] }),
        member({ id: "x2", role: "fetcher", addresses: [row("ip:10.0.0.2", 70, 8, 2, 700, 5), row("ip:10.0.0.3", 900, 0, 0, 0, 5)] }),
        // A dead node's rows are not shown.
        member({ id: "x3", role: "fetcher", addresses: [row("ip:10.0.0.9", 1, 99, 0, 5_000, 5)] }, "dead"),
      ],
    });
    expect(d.hosts.addresses).toEqual([
      { server: "ip:10.0.0.2", passes: 150, waits: 11, givenBack: 2, longestWaitMs: 700, since: 5, lastAt: 110 },
      { server: "ip:10.0.0.1", passes: 50, waits: 9, givenBack: 1, longestWaitMs: 400, since: 10, lastAt: 110 },
    ]);
  });

  test("outcomes - counters are grouped by kind", () => {
    expect(
      outcomesOf({
        "fetch.status.200": 3,
        "fetch.status.301": 1,
        "fetch.status.404": 2,
        "fetch.status.500": 1,
        "fetch.network-error.timeout": 1,
        "fetch.network-error.connect-timeout": 1,
        "fetch.network-error.dns": 4,
        "fetch.network-error.reset": 1,
        "fetch.skipped.blocked-address.loopback": 1,
        "robots.disallowed": 6,
        "traps.rejected.too-deep": 2,
        "traps.rejected.url-too-long": 1,
        "content.exact-duplicates": 5,
      }),
    ).toEqual({ ok: 3, "3xx": 1, "4xx": 2, "5xx": 1, timeout: 2, dns: 4, "other-error": 2, "robots-denied": 6, trap: 3, duplicate: 5 });
  });

  test("rate history - each step between samples is a point; a total that drops is no progress, not a negative rate", () => {
    const h = new RateHistory({ minStepMs: 1000, windowMs: 60_000 });
    h.sample(0, 0, 0);
    h.sample(2_000, 10, 1000);
    h.sample(2_500, 99, 99); // closer than minStep: skipped
    h.sample(4_000, 4, 500);
    h.sample(6_000, 14, 1500);
    expect(h.points()).toEqual([
      { at: 2_000, pagesPerSecond: 5, bytesPerSecond: 500 },
      { at: 4_000, pagesPerSecond: 0, bytesPerSecond: 0 },
      { at: 6_000, pagesPerSecond: 5, bytesPerSecond: 500 },
    ]);
    expect(h.current(4_000)).toEqual({ pagesPerSecond: 2.5, bytesPerSecond: 250 });
  });

  test("rate history - samples older than the window are dropped", () => {
    const h = new RateHistory({ minStepMs: 1000, windowMs: 10_000 });
    for (let t = 0; t <= 100_000; t += 1000) h.sample(t, t, t);
    expect(h.points().length).toBeLessThanOrEqual(11);
    expect(h.points()[0]!.at).toBeGreaterThanOrEqual(90_000);
  });
});

describe("dashboard jobs", () => {
  const view = (i: number) => ({
    job: {
      id: `j${i}`,
      number: i,
      maxPages: i % 2 === 0 ? 100 : 0,
      maxDurationMs: 0,
      weight: 1,
      state: i === 3 ? ("done" as const) : ("running" as const),
      ...(i === 3 && { reason: "max-pages" as const }),
      createdAt: 0,
      startedAt: 0,
    },
    counts: { pages: i * 10, errors: i, queued: i * 2 },
  });

  test("dashboard - shows each job's state, pages of maxPages, queued, errors and reason, the first 50 and how many more", () => {
    const d = buildDashboard({
      source: "crawl",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 0, bytesPerSecond: 0 },
      members: [],
      jobs: Array.from({ length: 53 }, (_, i) => view(i + 1)),
    });
    expect(d.jobs.rows).toHaveLength(50);
    expect(d.jobs.more).toBe(3);
    expect(d.jobs.rows[0]).toEqual({ id: "j1", state: "running", pages: 10, maxPages: 0, queued: 2, errors: 1, reason: null });
    expect(d.jobs.rows[2]).toEqual({ id: "j3", state: "done", pages: 30, maxPages: 0, queued: 6, errors: 3, reason: "max-pages" });
    expect(d.jobs.rows.at(-1)!.id).toBe("j50");
    const few = buildDashboard({
      source: "crawl",
      at: 1,
      rates: [],
      current: { pagesPerSecond: 0, bytesPerSecond: 0 },
      members: [],
      jobs: [view(2)],
    });
    expect(few.jobs).toEqual({
      rows: [{ id: "j2", state: "running", pages: 20, maxPages: 100, queued: 4, errors: 2, reason: null }],
      more: 0,
    });
  });
});
