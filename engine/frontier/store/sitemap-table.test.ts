/**
 * The sitemaps table's feed schedule: a feed read waits in the due index until its interval has passed, is
 * taken then (once) as pending again, an offer meanwhile takes it out of the index, a sitemap never enters
 * it, and the change journal carries the schedule so a copy rebuilt from it has the same.
 */
import { describe, expect, test } from "bun:test";
import { applyChanges } from "./changes.ts";
import { FrontierStore } from "./frontier-store.ts";

const P = 3;
const offer = (url: string, feed: boolean) => ({
  partition: P,
  host: "a.test",
  url,
  grants: [],
  fromIndex: false,
  depth: 0,
  hops: 0,
  feed,
});
const SCHEDULE = { rereadMs: 5_000, etag: '"v1"', lastModified: "Fri, 04 Dec 2026 10:00:00 GMT" };

describe("sitemap table", () => {
  test("sitemap table - a feed read is due again after its interval, taken once, with its validators", () => {
    const store = FrontierStore.open(":memory:");
    store.tx(() => {
      store.sitemaps.offer(offer("http://a.test/feed.xml", true), 1_000, 0);
      store.sitemaps.offer(offer("http://a.test/sitemap.xml", false), 1_000, 0);
    });
    expect(store.sitemaps.nextFeedDueAt()).toBeUndefined();
    store.tx(() => {
      store.sitemaps.finish({ partition: P, host: "a.test", url: "http://a.test/feed.xml" }, "read", 2_000, SCHEDULE);
      store.sitemaps.finish({ partition: P, host: "a.test", url: "http://a.test/sitemap.xml" }, "read", 2_000);
    });
    expect(store.nextDueAt()).toBe(7_000);
    expect(store.sitemaps.takeDueFeeds(6_999, 10)).toEqual([]);
    const [due, ...more] = store.tx(() => store.sitemaps.takeDueFeeds(7_000, 10));
    expect(more).toEqual([]);
    expect([due!.url, due!.feed]).toEqual(["http://a.test/feed.xml", SCHEDULE]);
    expect(store.sitemaps.next(P, "a.test")).toMatchObject({ url: "http://a.test/feed.xml", state: "pending", feed: SCHEDULE });
    expect(store.sitemaps.takeDueFeeds(10_000, 10)).toEqual([]);
    expect(store.nextDueAt()).toBeUndefined();
  });

  test("sitemap table - a feed offered again while it waits is pending at once and leaves the due index", () => {
    const store = FrontierStore.open(":memory:");
    store.tx(() => store.sitemaps.offer(offer("http://a.test/feed.xml", true), 1_000, 0));
    store.tx(() => store.sitemaps.finish({ partition: P, host: "a.test", url: "http://a.test/feed.xml" }, "read", 2_000, SCHEDULE));
    expect(store.tx(() => store.sitemaps.offer(offer("http://a.test/feed.xml", true), 3_000, 0))).toBe(true);
    expect(store.sitemaps.nextFeedDueAt()).toBeUndefined();
    expect(store.sitemaps.next(P, "a.test")?.feed).toEqual(SCHEDULE);
  });

  test("sitemap table - the journal carries a feed's schedule; a sitemap's change keeps its old shape", () => {
    const source = FrontierStore.open(":memory:", { journal: true });
    source.tx(() => {
      source.sitemaps.offer(offer("http://a.test/feed.xml", true), 1_000, 0);
      source.sitemaps.offer(offer("http://a.test/sitemap.xml", false), 1_000, 0);
    });
    source.tx(() => source.sitemaps.finish({ partition: P, host: "a.test", url: "http://a.test/feed.xml" }, "read", 2_000, SCHEDULE));
    const changes = source.journal!.rows(P, 0, 10).flatMap((r) => JSON.parse(r.body) as unknown[][]);
    expect(changes.map((c) => c.length)).toEqual([12, 10, 12]);
    const copy = FrontierStore.open(":memory:");
    applyChanges(copy, P, changes);
    expect(copy.sitemaps.nextFeedDueAt()).toBe(7_000);
    expect(copy.sitemaps.takeDueFeeds(7_000, 10).map((r) => r.feed)).toEqual([SCHEDULE]);
  });
  test("sitemap table - a row keeps its job while pending; made pending again by an offer, it takes that offer's job", () => {
    const store = FrontierStore.open(":memory:", { journal: true });
    const url = "http://a.test/sitemap.xml";
    store.tx(() => store.sitemaps.offer({ ...offer(url, false), job: 4 }, 1_000, 0));
    // Offered by job 6 while pending: one read serves both, for job 4.
    store.tx(() => store.sitemaps.offer({ ...offer(url, false), job: 6 }, 1_100, 0));
    expect(store.sitemaps.next(P, "a.test")?.job).toBe(4);
    store.tx(() => store.sitemaps.finish({ partition: P, host: "a.test", url }, "read", 2_000));
    // Read again for job 6's offer: job 6's; for a robots.txt's (no job): default's.
    expect(store.tx(() => store.sitemaps.offer({ ...offer(url, false), job: 6 }, 3_000, 0))).toBe(true);
    expect(store.sitemaps.next(P, "a.test")?.job).toBe(6);
    store.tx(() => store.sitemaps.finish({ partition: P, host: "a.test", url }, "read", 4_000));
    store.tx(() => store.sitemaps.offer(offer(url, false), 5_000, 0));
    expect(store.sitemaps.next(P, "a.test")?.job).toBeUndefined();
    // The journal carries a job's row (13 fields: no schedule, when due 0, the job), default's in the old shape.
    const changes = store.journal!.rows(P, 0, 10).flatMap((r) => JSON.parse(r.body) as unknown[][]);
    expect(changes.map((c) => c.length)).toEqual([13, 13, 13, 13, 10]);
    const copy = FrontierStore.open(":memory:");
    applyChanges(copy, P, changes.slice(0, 3));
    expect(copy.sitemaps.next(P, "a.test")).toMatchObject({ job: 6, state: "pending" });
  });
});
