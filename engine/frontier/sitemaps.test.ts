/**
 * Sitemaps in the frontier, on a fake clock: which sitemaps a robots.txt names become tasks, in which
 * order against a host's pages, under robots.txt rules; what their entries do (priority, lastmod); when a
 * sitemap is read again; the /sitemap.xml probe of a host whose robots.txt names none (the default: asked
 * once, its absence counted quietly, remembered across restarts and handoffs); `--sitemaps robots` and
 * `off`; and how sitemaps move with a partition.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { Frontier } from "./frontier.ts";
import { exportPartition, importChunk } from "./handoff.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const DAY = 86_400_000;

function setup(
  policy: Partial<PolicyConfig> = {},
  opts: { store?: FrontierStore; forward?: { owns(host: string): boolean; sent: DiscoveredUrl[] } } = {},
) {
  const clock = { now: T0 };
  let n = 0;
  const store = opts.store ?? FrontierStore.open(":memory:");
  const forward = opts.forward;
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, minGapMs: 0, gapFetchMultiplier: 0, ...policy },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    ...(forward
      ? {
          forward: {
            owns: forward.owns,
            send: async (urls: DiscoveredUrl[]) => {
              for (const u of urls) forward.sent.push(u);
            },
          },
        }
      : {}),
  });
  /** The next task, the clock moved past any gap first. */
  const next = (): FetchTask | undefined => {
    clock.now += 1_000;
    return frontier.nextTasks(1)[0];
  };
  return { frontier, clock, store, next };
}

const page = (u: string, extra: Partial<DiscoveredUrl> = {}): DiscoveredUrl => ({
  url: u,
  host: hostKeyOf(u),
  depth: 1,
  redirectHops: 0,
  ...extra,
});
const seed = (u: string): DiscoveredUrl => ({ url: u, host: hostKeyOf(u), depth: 0, redirectHops: 0 });

function ok(task: FetchTask, extra: Partial<ResponseResult> = {}): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: task.issuedAt,
    endedAt: task.issuedAt + 5,
    linksFound: 0,
    bytes: 100,
    ...extra,
  };
}

const robotsTxt = (task: FetchTask, text: string): FetchResult => ok(task, { robots: { verdict: "parse", text } });
const read = (task: FetchTask): FetchResult => ok(task, { sitemap: { format: "urlset", entries: 0, outOfLocation: 0, invalid: 0 } });
const kinds = (t: FetchTask | undefined) => (t ? `${t.kind} ${t.url}` : "none");

describe("frontier sitemaps", () => {
  test("the sitemaps robots.txt names are read after robots.txt and the home page, before the host's other pages", async () => {
    const { frontier, next } = setup();
    await frontier.addSeeds([seed("http://a.test/"), seed("http://a.test/x")]);
    const r = next()!;
    await frontier.complete(robotsTxt(r, "User-agent: *\nSitemap: /maps/s.xml\nSitemap: http://a.test/maps/t.xml.gz\n"), []);
    expect(frontier.sitemapsPending).toBe(2);
    const home = next()!;
    expect(kinds(home)).toBe("page http://a.test/");
    await frontier.complete(ok(home), []);
    const s = next()!;
    expect(kinds(s)).toBe("sitemap http://a.test/maps/s.xml");
    // The robots.txt vouches for the whole origin.
    expect(s.sitemap).toEqual({ grants: ["http://a.test/"] });
    await frontier.complete(read(s), [page("http://a.test/from-map")]);
    const t = next()!;
    expect(kinds(t)).toBe("sitemap http://a.test/maps/t.xml.gz");
    await frontier.complete(read(t), []);
    expect(frontier.sitemapsPending).toBe(0);
    expect(kinds(next())).toBe("page http://a.test/x");
    expect(frontier.counters.toJSON()).toMatchObject({ "sitemap.queued": 2, "sitemap.read.urlset": 2, "frontier.tasks.sitemap": 2 });
  });

  test("a sitemap robots.txt forbids is never requested; a host whose robots.txt failed reads none", async () => {
    const { frontier, next } = setup();
    await frontier.addSeeds([seed("http://a.test/x")]);
    await frontier.complete(robotsTxt(next()!, "User-agent: *\nDisallow: /maps/\nSitemap: http://a.test/maps/s.xml\n"), []);
    expect(kinds(next())).toBe("page http://a.test/x");
    expect(frontier.sitemapsPending).toBe(0);
    expect(frontier.counters.get("robots.disallowed-sitemaps")).toBe(1);
    expect(frontier.explainUrl("http://a.test/maps/s.xml", "a.test").sitemap).toBe("disallowed");

    const b = setup();
    await b.frontier.addSeeds([seed("http://b.test/x")]);
    const r = b.next()!;
    await b.frontier.complete({ ...ok(r), status: 503, robots: { verdict: "disallow-all" } }, []);
    expect(b.frontier.sitemapsPending).toBe(0);
  });

  test("by default a host whose robots.txt names none gets /sitemap.xml, once; a 404 or 410 is counted as absent, not as a fetch status", async () => {
    for (const status of [404, 410]) {
      const { frontier, next } = setup();
      await frontier.addSeeds([seed("http://a.test/x"), seed("http://a.test/y")]);
      await frontier.complete(ok(next()!, { status: 404, robots: { verdict: "allow-all" } }), []);
      const probe = next()!;
      expect(kinds(probe)).toBe("sitemap http://a.test/sitemap.xml");
      await frontier.complete(ok(probe, { status }), []);
      for (const url of ["http://a.test/x", "http://a.test/y"]) {
        const t = next()!;
        expect(kinds(t)).toBe(`page ${url}`);
        await frontier.complete(ok(t), []);
      }
      expect(next()).toBeUndefined();
      const counters = frontier.counters.toJSON();
      expect(counters).toMatchObject({ "sitemap.probed": 1, "sitemap.probe.absent": 1 });
      expect(counters["fetch.status.404"]).toBe(1); // robots.txt's, not the probe's
      expect(counters["fetch.status.410"]).toBeUndefined();
      expect(Object.keys(counters).filter((k) => k.startsWith("sitemap.unread"))).toEqual([]);
      expect(frontier.explainUrl("http://a.test/sitemap.xml", "a.test").sitemap).toBe("read");
    }
  });

  test("a probed /sitemap.xml that is no sitemap is counted as such; one robots.txt names is a named sitemap, its 404 a fetch status", async () => {
    const html = setup();
    await html.frontier.addSeeds([seed("http://a.test/x")]);
    await html.frontier.complete(robotsTxt(html.next()!, "User-agent: *\nDisallow: /private/\n"), []);
    const probe = html.next()!;
    expect(kinds(probe)).toBe("sitemap http://a.test/sitemap.xml");
    await html.frontier.complete(ok(probe, { sitemap: { format: "not-a-sitemap", entries: 0, outOfLocation: 0, invalid: 0 } }), []);
    expect(html.frontier.counters.toJSON()).toMatchObject({ "sitemap.probed": 1, "sitemap.probe.not-a-sitemap": 1 });
    expect(html.frontier.counters.get("sitemap.read.not-a-sitemap")).toBe(0);

    const named = setup();
    await named.frontier.addSeeds([seed("http://a.test/x")]);
    await named.frontier.complete(robotsTxt(named.next()!, "Sitemap: http://a.test/sitemap.xml\n"), []);
    await named.frontier.complete(ok(named.next()!, { status: 404 }), []);
    expect(named.frontier.counters.toJSON()).toMatchObject({ "sitemap.unread.status-404": 1, "fetch.status.404": 1 });
    expect(named.frontier.counters.get("sitemap.probed")).toBe(0);
  });

  test("the probe is asked again only when robots.txt is fetched again and still names no sitemap", async () => {
    for (const again of ["User-agent: *\n", "Sitemap: http://a.test/maps/s.xml\n"]) {
      const { frontier, next, clock } = setup();
      await frontier.addSeeds([seed("http://a.test/x"), seed("http://a.test/y")]);
      await frontier.complete(robotsTxt(next()!, "User-agent: *\n"), []);
      await frontier.complete(ok(next()!, { status: 404 }), []); // the probe
      await frontier.complete(ok(next()!), []); // /x
      clock.now += DEFAULT_POLICY.robotsMaxAgeMs;
      const robots = next()!;
      expect(kinds(robots)).toBe("robots http://a.test/robots.txt");
      await frontier.complete(robotsTxt(robots, again), []);
      const tasks: string[] = [];
      for (let t = next(); t; t = next()) {
        tasks.push(kinds(t));
        await frontier.complete(ok(t, { status: t.kind === "sitemap" ? 404 : 200 }), []);
      }
      // Pages are due again too (their refetch); the sitemaps read are what this is about.
      expect(tasks.filter((t) => t.startsWith("sitemap"))).toEqual([
        again.includes("Sitemap") ? "sitemap http://a.test/maps/s.xml" : "sitemap http://a.test/sitemap.xml",
      ]);
    }
  });

  test("a host probed is not probed again after a restart or a handoff: the probe is a sitemap row like any other", async () => {
    const a = setup();
    await a.frontier.addSeeds([seed("http://a.test/x"), seed("http://a.test/y")]);
    await a.frontier.complete(robotsTxt(a.next()!, "User-agent: *\n"), []);
    await a.frontier.complete(ok(a.next()!, { status: 404 }), []); // the probe
    const partition = a.next()!.partition; // /x handed out, its result lost with the process
    const rest = ["page http://a.test/x", "page http://a.test/y"];
    const b = setup();
    for (const chunk of exportPartition(a.store, partition)) importChunk(b.store, chunk);
    expect(b.store.sitemaps.byUrl(partition, "http://a.test/sitemap.xml")?.state).toBe("read");

    for (const store of [a.store, b.store]) {
      const after = setup({}, { store });
      after.clock.now = a.clock.now + 60_000;
      const tasks: string[] = [];
      for (let t = after.next(); t; t = after.next()) {
        tasks.push(kinds(t));
        await after.frontier.complete(ok(t), []);
      }
      expect(tasks).toEqual(rest);
    }
  });

  test("with --sitemaps robots no host is probed; with off, none is read", async () => {
    const robots = setup({ sitemaps: "robots" });
    await robots.frontier.addSeeds([seed("http://a.test/x")]);
    await robots.frontier.complete(ok(robots.next()!, { status: 404, robots: { verdict: "allow-all" } }), []);
    expect(kinds(robots.next())).toBe("page http://a.test/x");
    expect(robots.frontier.sitemapsPending).toBe(0);

    const off = setup({ sitemaps: "off" });
    await off.frontier.addSeeds([seed("http://a.test/x")]);
    await off.frontier.complete(robotsTxt(off.next()!, "Sitemap: http://a.test/s.xml\n"), [
      page("http://a.test/idx.xml", { sitemap: { grants: [] } }),
    ]);
    expect(off.frontier.sitemapsPending).toBe(0);
    expect(kinds(off.next())).toBe("page http://a.test/x");
  });

  test("a sitemap on another host is read by that host's turn, after its own robots.txt; in a cluster it goes to the host's owner", async () => {
    const { frontier, next } = setup();
    await frontier.addSeeds([seed("http://a.test/x")]);
    await frontier.complete(robotsTxt(next()!, "Sitemap: http://maps.test/for-a.xml\n"), []);
    const tasks: string[] = [];
    for (let t = next(); t; t = next()) {
      tasks.push(kinds(t));
      await frontier.complete(t.kind === "robots" ? robotsTxt(t, "User-agent: *\nSitemap: http://maps.test/own.xml\n") : read(t), []);
    }
    expect(tasks.filter((t) => t.includes("maps.test"))).toEqual([
      "robots http://maps.test/robots.txt",
      "sitemap http://maps.test/for-a.xml",
    ]);
    expect(tasks).toContain("page http://a.test/x");
    // maps.test has no pages of its own to crawl: its robots.txt's sitemaps are not looked for.
    expect(frontier.counters.get("sitemap.queued")).toBe(1);

    const forward = { owns: (host: string) => host === "a.test", sent: [] as DiscoveredUrl[] };
    const c = setup({}, { forward });
    await c.frontier.addSeeds([seed("http://a.test/x")]);
    await c.frontier.complete(robotsTxt(c.next()!, "Sitemap: http://maps.test/for-a.xml\n"), []);
    expect(forward.sent).toEqual([
      {
        url: "http://maps.test/for-a.xml",
        host: "maps.test",
        depth: 0,
        sourceUrl: "http://a.test/robots.txt",
        redirectHops: 0,
        sitemap: { grants: ["http://a.test/"] },
      },
    ]);
    expect(c.frontier.sitemapsPending).toBe(0);
  });

  test("an index's sitemaps are read in turn; one read is offered again only when its lastmod is newer, or after half the robots.txt lifetime", async () => {
    const { frontier, next, clock } = setup();
    await frontier.addSeeds([seed("http://a.test/x")]);
    await frontier.complete(robotsTxt(next()!, "Sitemap: http://a.test/index.xml\n"), []);
    const index = next()!;
    expect(kinds(index)).toBe("sitemap http://a.test/index.xml");
    const child = (lastmod?: number) =>
      page("http://a.test/s1.xml", { depth: 0, sitemap: { grants: ["http://a.test/"], fromIndex: true }, ...(lastmod ? { lastmod } : {}) });
    await frontier.complete(ok(index, { sitemap: { format: "index", entries: 1, outOfLocation: 0, invalid: 0 } }), [child(T0 - DAY)]);
    const s1 = next()!;
    expect(s1.sitemap).toEqual({ grants: ["http://a.test/"], fromIndex: true });
    await frontier.complete(read(s1), []);
    await frontier.admit([child(T0 - DAY)]);
    expect(frontier.sitemapsPending).toBe(0);
    await frontier.admit([child(clock.now + 1)]);
    expect(frontier.sitemapsPending).toBe(1);
    await frontier.complete(read(next()!), []);
    await frontier.admit([child()]);
    expect(frontier.sitemapsPending).toBe(0);
    clock.now += DEFAULT_POLICY.robotsMaxAgeMs / 2;
    await frontier.admit([child()]);
    expect(frontier.sitemapsPending).toBe(1);
  });

  test("an entry's priority places it among the host's pages; a home page stays at the first level whatever it says", async () => {
    const { frontier, next } = setup({ sitemaps: "robots" });
    await frontier.addSeeds([seed("http://a.test/seed")]);
    await frontier.complete(robotsTxt(next()!, "User-agent: *\n"), []);
    await frontier.complete(ok(next()!), [
      page("http://a.test/low", { sitemapPriority: 0.1 }),
      page("http://a.test/mid"),
      page("http://a.test/high", { sitemapPriority: 0.9 }),
      page("http://a.test/", { sitemapPriority: 0 }),
    ]);
    const order: string[] = [];
    for (let t = next(); t; t = next()) {
      order.push(t.url);
      await frontier.complete(ok(t), []);
    }
    expect(order).toEqual(["http://a.test/high", "http://a.test/", "http://a.test/mid", "http://a.test/low"]);
  });

  test("a fetched page whose lastmod is newer than its visit is due at once; an older lastmod changes nothing", async () => {
    const { frontier, next, clock } = setup();
    await frontier.addSeeds([seed("http://a.test/a"), seed("http://a.test/b")]);
    await frontier.complete(robotsTxt(next()!, "User-agent: *\n"), []);
    const fetchedAt: Record<string, number> = {};
    for (let t = next(); t; t = next()) {
      fetchedAt[t.url] = clock.now;
      await frontier.complete(ok(t), []);
    }
    expect(frontier.explainUrl("http://a.test/a", "a.test").state).toBe("fetched");
    await frontier.admit([
      page("http://a.test/a", { lastmod: fetchedAt["http://a.test/a"]! + 60_000 }),
      page("http://a.test/b", { lastmod: fetchedAt["http://a.test/b"]! - 60_000 }),
    ]);
    expect(frontier.counters.get("sitemap.lastmod-due")).toBe(1);
    const again = next();
    expect(kinds(again)).toBe("page http://a.test/a");
    await frontier.complete(ok(again!), []);
    expect(next()).toBeUndefined();
  });

  test("a partition's sitemaps move with it in a handoff", async () => {
    const a = setup();
    await a.frontier.addSeeds([seed("http://a.test/x")]);
    await a.frontier.complete(robotsTxt(a.next()!, "Sitemap: http://a.test/s.xml\n"), []);
    const p = a.frontier.explainUrl("http://a.test/x", "a.test");
    expect(p.state).toBe("queued");
    const b = setup();
    const partition = [...Array(16).keys()].find((i) => a.store.sitemaps.pendingFor(i, "a.test") > 0)!;
    for (const chunk of exportPartition(a.store, partition)) importChunk(b.store, chunk);
    expect(b.store.sitemaps.pendingFor(partition, "a.test")).toBe(1);
    // The seed's scope root moves with its partition too.
    expect(b.store.scopeRoots.inPartition(partition)).toEqual(["a.test"]);
    const moved = setup({}, { store: b.store });
    expect(moved.frontier.sitemapsPending).toBe(1);
  });
});
