/**
 * Feeds in a cluster of two frontier and two fetch nodes, judged from the test web's request log: two news
 * sites whose hosts belong to different frontier nodes, their feeds seeded with `crawlctl seed add --feeds`
 * (nothing links them, so only the feeds' own schedule brings them back). Each feed is read, its posts
 * fetched; read again conditionally (304 with the ETag of its last answer) while unchanged; and a post
 * published mid-crawl is fetched after the feed's next read, which comes within the feed's reread interval
 * (at most --refetch-max) of the read before it. Every host is kept polite throughout.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { logClock, newsSite, type NewsSite, type RequestRecord } from "../../testweb/index.ts";
import { MIN_GAP_MS, ownerOf, useCluster, waitForPages, waitUntil } from "./harness.ts";

const cluster = useCluster();
/** --refetch-max: no feed waits longer than this between two reads. */
const REREAD_MAX_MS = 4_000;
/**
 * What may come on top of the interval before the read's request reaches the server: the frontier moves
 * due feeds into their hosts' queues once a second, then the task crosses the bus to a fetch node.
 */
const DISPATCH_MS = 2_000;

describe("cluster: feeds", () => {
  test("crawlctl seed add --feeds: feeds are read on their own schedule, conditionally, and a new post is fetched at the next read", async () => {
    const candidates = Array.from({ length: 8 }, (_, i) => `news-${i}.test`);
    const sites = new Map<string, NewsSite>(candidates.map((host) => [host, newsSite(host, 2)]));
    const web = await cluster.web({ hosts: 0, extraHosts: Object.fromEntries([...sites].map(([host, s]) => [host, s.behaviour])) });
    const c = await cluster.up({
      web,
      frontiers: 2,
      fetchers: 2,
      frontierArgs: [
        "--sitemaps",
        "robots",
        "--allow-short-refetch",
        "--refetch-initial",
        "2s",
        "--refetch-min",
        "1s",
        "--refetch-max",
        "4s",
      ],
    });
    // Two sites whose hosts belong to different frontier nodes, so each node reads a feed of its own.
    const ring = await c.ring();
    const first = candidates[0]!;
    const second = candidates.find((h) => ownerOf(ring, h) !== ownerOf(ring, first));
    expect(second).toBeDefined();
    const hosts = [first, second!];
    const feedsFile = join(c.dir, "feeds.txt");
    writeFileSync(feedsFile, `# the news\n${hosts.map((h) => web.url(h, "/feed.xml")).join("\n")}\n`);
    const added = await c.crawlctlJson<{ accepted: number; rejected: unknown[]; rejectedTotal: number }>([
      "seed",
      "add",
      "--feeds",
      feedsFile,
    ]);
    expect(added).toEqual({ accepted: 2, rejected: [], rejectedTotal: 0 });

    const feedReads = (host: string) => web.requestsTo(host).filter((r) => r.path === "/feed.xml" && r.completed);
    const postsOf = (host: string) => sites.get(host)!.posts.map((p) => web.url(host, p));
    await waitForPages(
      web,
      hosts.flatMap((h) => postsOf(h)),
      { timeoutMs: 60_000, what: "every post the feeds list", procs: [c.proc] },
    );
    await waitUntil(() => hosts.every((h) => feedReads(h).some((r) => r.status === 304)), {
      timeoutMs: 30_000,
      what: "a conditional read of each unchanged feed",
      procs: [c.proc],
      detail: () => hosts.map((h) => `${h}: ${feedReads(h).map((r) => `${r.status} ${r.headers["if-none-match"] ?? "-"}`)}`).join("; "),
    });
    const publishedAt = logClock();
    const fresh = new Map(hosts.map((h) => [h, sites.get(h)!.publish()]));
    await waitForPages(
      web,
      hosts.map((h) => web.url(h, fresh.get(h)!)),
      { timeoutMs: 30_000, what: "the post published on each site mid-crawl", procs: [c.proc] },
    );

    for (const host of hosts) {
      const reads = feedReads(host);
      const log = web.requestsTo(host);
      // The first read is unconditional; later reads before the post carry the feed's ETag and get a 304.
      expect([reads[0]!.status, reads[0]!.headers["if-none-match"]]).toEqual([200, undefined]);
      const unchanged = reads.filter((r, i) => i > 0 && r.startedAt < publishedAt);
      expect(unchanged.map((r) => [r.status, r.headers["if-none-match"]])).toEqual(unchanged.map(() => [304, '"posts-2"']));
      // The first read after the post: a full answer, the post fetched after it, once.
      const next = reads.find((r) => r.startedAt > publishedAt)!;
      expect([next.status, next.headers["if-none-match"]]).toEqual([200, '"posts-2"']);
      const post = log.filter((r) => r.path === fresh.get(host));
      expect(post).toHaveLength(1);
      expect(post[0]!.startedAt).toBeGreaterThan(next.startedAt);
      // That read came within one reread interval of the read before it: the post waited at most that long.
      const before: RequestRecord = reads.filter((r) => r.startedAt < publishedAt).at(-1)!;
      expect(next.startedAt - before.startedAt).toBeLessThanOrEqual(REREAD_MAX_MS + DISPATCH_MS);
    }
    expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 150_000);
});
