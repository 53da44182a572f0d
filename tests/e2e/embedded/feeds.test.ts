/**
 * Feeds, judged from the test web's own log: a home page names its RSS feed in `<link rel="alternate">`;
 * `crawl --continuous` reads the feed right after the home page and fetches the posts only the feed lists;
 * a post published mid-crawl is picked up at the home page's next refetch (the home page names the feed
 * again, and a feed is read again at every offer once --refetch-min has passed): the home page, then the
 * feed, then the new post, and nothing is asked twice for it. Politeness per host is judged by the harness.
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
    const after = log.filter((r) => r.startedAt > publishedAt).map((r) => r.path);
    // After the post appeared: the home page's refetch, the feed read again, the new post: in that order.
    const home = after.indexOf("/");
    const feed = after.indexOf("/feed.xml", home);
    const post = after.indexOf(fresh);
    expect(home).toBeGreaterThanOrEqual(0);
    expect(feed).toBeGreaterThan(home);
    expect(post).toBeGreaterThan(feed);
    expect(log.filter((r) => r.path === fresh)).toHaveLength(1);
    // It was the first request after the post appeared, the home page's refetch as it fell due: the post was
    // found at the first refetch after it appeared, not at some later one.
    expect(after[0]).toBe("/");
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
});
