/**
 * Feeds, judged from the test web's own log: a home page names its RSS feed in `<link rel="alternate">`;
 * `crawl --continuous` reads the feed right after the home page and fetches the posts only the feed lists;
 * a post published mid-crawl is picked up at the feed's next read (on its own schedule, or when the home
 * page's refetch names it again): the feed read and answered in full, then the new post, and nothing is asked
 * twice for it. A feed read again sends the validators of its last answer: unchanged, the server answers 304
 * and nothing is parsed; changed, its new item is fetched. Politeness per host is judged by the harness.
 */
import { describe, expect, test } from "bun:test";
import { logClock, newsSite } from "../../testweb/index.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { crawlArgs, expectCleanExit, interrupt, pathsOf, useHarness, waitFor, waitUntilIdle } from "./harness.ts";

const h = useHarness();
const HOST = "news.test";
const SHORT_REFETCH = ["--allow-short-refetch", "--refetch-initial", "4s", "--refetch-min", "2s", "--refetch-max", "1m"];

describe("crawl: feeds", () => {
  test("a home page's RSS feed is read, and a post published mid-crawl is fetched after the next read of the feed", async () => {
    const news = newsSite(HOST, 3);
    const web = await h.web({ hosts: 0, extraHosts: { [HOST]: news.behaviour } });
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(web, [web.url(HOST)], out, ["--continuous", "--sitemaps", "robots", ...SHORT_REFETCH, "--max-duration", "60s"]),
      {
        out,
      },
    );
    // Posts 1 and 2 are linked from nowhere but the feed.
    await waitFor(() => news.posts.every((p) => pathsOf(web, HOST).includes(p)), {
      timeoutMs: 20_000,
      what: "every post the feed lists",
      run,
      detail: () => pathsOf(web, HOST).join(" "),
    });
    const publishedAt = logClock();
    const fresh = news.publish();
    await waitFor(() => pathsOf(web, HOST).includes(fresh), {
      timeoutMs: 30_000,
      what: `the new post ${fresh}`,
      run,
      detail: () => pathsOf(web, HOST).join(" "),
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);

    const log = web.requestsTo(HOST);
    const after = log.filter((r) => r.startedAt > publishedAt);
    // After the post appeared: the feed read again (answered in full: it changed), then the new post. It was
    // the first read of the feed after the post appeared: the post was found then, not at some later read.
    const feed = after.findIndex((r) => r.path === "/feed.xml");
    const post = after.findIndex((r) => r.path === fresh);
    expect(feed).toBeGreaterThanOrEqual(0);
    expect(after[feed]!.status).toBe(200);
    expect(post).toBeGreaterThan(feed);
    expect(log.filter((r) => r.path === fresh)).toHaveLength(1);
    // The feed was read on the first visit too, and never fetched as a page before robots.txt allowed.
    expect(pathsOf(web, HOST).slice(0, 3)).toEqual(["/robots.txt", "/", "/feed.xml"]);
  }, 60_000);

  test("--feeds FILE: a feed given as a seed is read, not fetched as a page, and its items are fetched", async () => {
    const news = newsSite(HOST, 3);
    const web = await h.web({ hosts: 0, extraHosts: { [HOST]: news.behaviour } });
    const out = h.tempDir();
    const feeds = join(h.tempDir(), "feeds.txt");
    writeFileSync(feeds, `# the news\n${web.url(HOST, "/feed.xml")}\n`);
    const run = h.crawl([...crawlArgs(web, [], out, ["--sitemaps", "robots", "--max-duration", "60s"]), "--feeds", feeds], { out });
    await waitUntilIdle(run, () => news.posts.every((p) => pathsOf(web, HOST).includes(p)), {
      timeoutMs: 30_000,
      what: "every post of the feed",
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);
    // robots.txt first, then the feed, then its posts (the home page is linked from none of them).
    expect(pathsOf(web, HOST).slice(0, 2)).toEqual(["/robots.txt", "/feed.xml"]);
    expect(pathsOf(web, HOST).filter((p) => p === "/feed.xml")).toHaveLength(1);
    // The summary counts it: one feed read, its 3 items.
    expect([summary.counters["feed.read"], summary.counters["feed.items"]]).toEqual([1, 3]);
  }, 60_000);

  test("a feed is read again on its own schedule with a conditional GET: 304 while unchanged, read in full once it changed", async () => {
    const news = newsSite(HOST, 3);
    const web = await h.web({ hosts: 0, extraHosts: { [HOST]: news.behaviour } });
    const out = h.tempDir();
    const feeds = join(h.tempDir(), "feeds.txt");
    writeFileSync(feeds, `${web.url(HOST, "/feed.xml")}\n`);
    const schedule = ["--allow-short-refetch", "--refetch-initial", "2s", "--refetch-min", "1s", "--refetch-max", "4s"];
    const run = h.crawl(
      [...crawlArgs(web, [], out, ["--continuous", "--sitemaps", "robots", ...schedule, "--max-duration", "60s"]), "--feeds", feeds],
      { out },
    );
    const feedReads = () => web.requestsTo(HOST).filter((r) => r.path === "/feed.xml" && r.completed);
    // Nothing links the feed: it is read again only by its own schedule. Two unchanged reads, then a post.
    await waitFor(() => feedReads().filter((r) => r.status === 304).length >= 2, {
      timeoutMs: 30_000,
      what: "two conditional reads of the unchanged feed",
      run,
      detail: () =>
        feedReads()
          .map((r) => `${r.status} ${r.headers["if-none-match"] ?? "-"}`)
          .join(", "),
    });
    const publishedAt = logClock();
    const fresh = news.publish();
    await waitFor(() => pathsOf(web, HOST).includes(fresh), { timeoutMs: 30_000, what: `the new post ${fresh}`, run });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);

    const reads = feedReads();
    // The first read is unconditional and answered in full, with the feed's validators.
    expect(reads[0]!.headers["if-none-match"]).toBeUndefined();
    expect(reads[0]!.status).toBe(200);
    // Every later read sends back the validators of the last full answer; while the posts were the same, 304.
    const before = reads.filter((r, i) => i > 0 && r.startedAt < publishedAt);
    expect(before.length).toBeGreaterThanOrEqual(2);
    for (const r of before) {
      expect([r.status, r.headers["if-none-match"], r.headers["if-modified-since"] !== undefined]).toEqual([304, '"posts-3"', true]);
    }
    // The first read after the post appeared still asked with the old validators and got the feed in full;
    // the new post came after it, once.
    const changed = reads.find((r) => r.startedAt > publishedAt)!;
    expect([changed.status, changed.headers["if-none-match"]]).toEqual([200, '"posts-3"']);
    const log = web.requestsTo(HOST);
    expect(log.findIndex((r) => r.path === fresh)).toBeGreaterThan(log.indexOf(changed));
    expect(log.filter((r) => r.path === fresh)).toHaveLength(1);
    // Read in full twice, 304 otherwise (no parse: its items were counted twice only, 3 then 4).
    const full = reads.filter((r) => r.status === 200).length;
    expect(summary.counters["feed.read"]).toBe(full);
    expect(summary.counters["feed.not-modified"]).toBe(reads.filter((r) => r.status === 304).length);
    expect(summary.counters["feed.items"]).toBe(3 + 4 * (full - 1));
    // crawl stats: one feed known, waiting for its next read, due after the last read (--refetch-max at most).
    const stats = Bun.spawnSync(["bun", "embedded/main.ts", "stats", "--out", out], { cwd: join(import.meta.dir, "../../..") });
    expect(stats.exitCode).toBe(0);
    const { feeds: known } = JSON.parse(stats.stdout.toString()) as { feeds: { feeds: number; waiting: number; nextReadAt: number } };
    expect([known.feeds, known.waiting]).toEqual([1, 1]);
    // Due one interval (at most --refetch-max, 4 s) after its last read was applied, a moment after the server answered it.
    const last = reads.at(-1)!;
    expect(known.nextReadAt).toBeGreaterThan(last.endedAt);
    expect(known.nextReadAt).toBeLessThan(last.endedAt + 4_000 + 1_000);
    // The end-of-crawl report lists it among what is left, due when crawl stats says.
    const due = new Date(known.nextReadAt).toISOString().slice(0, 19).replace("T", " ");
    expect(exit.stdout).toContain(`\n    1 feed waiting for its next read, the first due ${due} UTC`);
  }, 90_000);
});
