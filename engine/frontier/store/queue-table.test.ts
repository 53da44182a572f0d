import { describe, expect, test } from "bun:test";
import type { Change } from "./changes.ts";
import { QueueTable, type QueuedUrl } from "./queue-table.ts";
import { openStoreFile } from "./store-file.ts";

function setup(savedSeq = 0) {
  const db = openStoreFile(":memory:", (d) => d);
  const notes: Array<[number, Change]> = [];
  const queue = new QueueTable(db, (p, c) => void notes.push([p, c]), savedSeq);
  return { db, queue, notes };
}

const item = (url: string, priority: 1 | 2 | 3 = 2, host = "a.test", partition = 0): Omit<QueuedUrl, "seq"> => ({
  host,
  partition,
  priority,
  url,
  depth: 1,
  hops: 0,
  kind: "page",
});

describe("queue table", () => {
  test("queue table - a host's head is its best priority first, then the oldest of that priority", () => {
    const { queue } = setup();
    queue.enqueueMany([item("http://a.test/late", 3), item("http://a.test/first", 2), item("http://a.test/second", 2)]);
    expect(queue.head(0, "a.test")?.url).toBe("http://a.test/first");
    queue.dequeue(queue.head(0, "a.test")!);
    expect(queue.head(0, "a.test")?.url).toBe("http://a.test/second");
    queue.dequeue(queue.head(0, "a.test")!);
    expect(queue.head(0, "a.test")?.url).toBe("http://a.test/late");
    expect(queue.head(0, "b.test")).toBeUndefined();
  });

  test("queue table - sequence numbers continue after the saved counter and after rows already queued", () => {
    expect(setup(41).queue.nextSeq).toBe(42);
    const { db, queue } = setup();
    queue.put({ ...item("http://a.test/replayed"), seq: 500 });
    // A table opened again over the same rows starts above the largest queued seq, even with an older saved counter.
    const again = new QueueTable(db, () => {}, 10);
    expect(again.enqueueMany([item("http://a.test/next")])).toEqual([501]);
    again.reserveSeq(900);
    expect(again.nextSeq).toBe(901);
  });

  test("queue table - counts by host and in all, and finds a queued URL", () => {
    const { queue } = setup();
    queue.enqueueMany([item("http://a.test/1"), item("http://a.test/2"), item("http://b.test/1", 2, "b.test", 3)]);
    expect(queue.total()).toBe(3);
    expect(queue.countForHost(0, "a.test")).toBe(2);
    expect([...queue.countsByHost()].sort()).toEqual([
      ["a.test", 2],
      ["b.test", 1],
    ]);
    expect([...queue.countsByHost(3)]).toEqual([["b.test", 1]]);
    expect(queue.has(0, "a.test", "http://a.test/2")).toBe(true);
    expect(queue.has(0, "a.test", "http://a.test/3")).toBe(false);
  });

  test("queue table - the size limit deletes the lowest priority, newest first, and leaves the journaling to its caller", () => {
    const { queue, notes } = setup();
    queue.keepDropOrder(true);
    queue.enqueueMany([item("http://a.test/home", 1), item("http://a.test/old", 3), item("http://a.test/new", 3)]);
    const before = notes.length;
    expect(queue.deleteLowest(1).map((d) => d.url)).toEqual(["http://a.test/new"]);
    expect(notes.length).toBe(before);
    expect(queue.total()).toBe(2);
  });

  test("queue table - the size limit's index exists only while kept, and the drop refuses to run without it", () => {
    const { db, queue } = setup();
    const hasIndex = () => db.query("SELECT 1 FROM sqlite_schema WHERE name = 'queue_drop_order'").get() !== null;
    // A store is made without it: a crawl without a size limit writes no entry of it per URL.
    expect(hasIndex()).toBe(false);
    queue.enqueueMany([item("http://a.test/home", 1), item("http://a.test/new", 3)]);
    expect(() => queue.deleteLowest(1)).toThrow(/no such index: queue_drop_order/);
    expect(queue.total()).toBe(2);
    // Built over the rows already queued, once.
    expect(queue.keepDropOrder(true)).toBe(true);
    expect(queue.keepDropOrder(true)).toBe(false);
    expect(hasIndex()).toBe(true);
    expect(queue.deleteLowest(1).map((d) => d.url)).toEqual(["http://a.test/new"]);
    expect(queue.keepDropOrder(false)).toBe(true);
    expect(hasIndex()).toBe(false);
    expect(queue.head(0, "a.test")?.url).toBe("http://a.test/home");
  });

  test("queue table - each write is noted under its partition; a partition is read in key order and deleted whole", () => {
    const { queue, notes } = setup();
    const seq = queue.enqueueMany([item("http://c.test/x", 2, "c.test", 5)])[0]!;
    queue.enqueueMany([item("http://a.test/y", 2, "a.test", 5), item("http://d.test/z", 2, "d.test", 6)]);
    queue.dequeue({ partition: 5, host: "c.test", priority: 2, seq });
    expect(notes[0]).toEqual([5, ["q", "c.test", 2, seq, "http://c.test/x", 1, 0]]);
    expect(notes.at(-1)).toEqual([5, ["d", "c.test", 2, seq]]);
    expect(queue.inPartition(5, undefined, 10).map((q) => q.url)).toEqual(["http://a.test/y"]);
    expect(queue.anyIn(6)).toBe(true);
    queue.deletePartition(6);
    expect(queue.anyIn(6)).toBe(false);
    expect(queue.total()).toBe(1);
  });

  describe("a row's URL relative to its host", () => {
    /** The `url` column as stored, by URL in queue order. */
    const stored = (db: ReturnType<typeof setup>["db"]) =>
      (db.query("SELECT url FROM queue ORDER BY seq").all() as Array<{ url: string }>).map((r) => r.url);

    // [host key, URL, as stored]
    const cases: Array<[string, string, string]> = [
      ["a.test", "http://a.test/news/x?y=1#z", "/news/x?y=1#z"],
      ["a.test", "http://a.test/", "/"],
      ["a.test", "https://a.test/secure", "~/secure"],
      ["a.test", "http://a.test/~user/~x", "/~user/~x"],
      ["a.test", "https://a.test/~user", "~/~user"],
      ["a.test:8080", "http://a.test:8080/p", "/p"],
      ["a.test:8443", "https://a.test:8443/p", "~/p"],
      ["[::1]:8080", "http://[::1]:8080/v6", "/v6"],
      ["[2001:db8::1]", "https://[2001:db8::1]/v6", "~/v6"],
      // Whole: the host differs, only starts the same, or the URL names another port or none.
      ["a.test", "http://b.test/p", "http://b.test/p"],
      ["a.test", "http://a.test.evil/p", "http://a.test.evil/p"],
      ["a.test", "http://a.testing/p", "http://a.testing/p"],
      ["a.test", "http://a.test:8080/p", "http://a.test:8080/p"],
      ["a.test:8080", "http://a.test/p", "http://a.test/p"],
      ["a.test", "http://a.test?q", "http://a.test?q"],
      ["a.test", "http://a.test", "http://a.test"],
      ["a.test", "http://user@a.test/p", "http://user@a.test/p"],
      ["a.test", "ftp://a.test/p", "ftp://a.test/p"],
      ["a.test", "HTTP://a.test/p", "HTTP://a.test/p"],
      ["A.test", "http://a.test/p", "http://a.test/p"],
      ["", "http:///p", "/p"],
    ];

    test("queue table - a URL on its host is stored from its path (https marked `~`), any other whole, and read back whole everywhere", () => {
      const { db, queue } = setup();
      // Each in a partition of its own, so it is its host's head there.
      queue.enqueueMany(cases.map(([host, url], i) => item(url, 2, host, i)));
      expect(stored(db)).toEqual(cases.map(([, , s]) => s));
      cases.forEach(([host, url], i) => {
        expect(queue.head(i, host)).toMatchObject({ host, url });
        expect(queue.has(i, host, url)).toBe(true);
        expect(queue.inPartition(i, undefined, 10).map((q) => q.url)).toEqual([url]);
      });
      // The size limit's RETURNING (in no particular order).
      queue.keepDropOrder(true);
      const urls = cases.map(([, url]) => url).sort();
      expect(
        queue
          .deleteLowest(100)
          .map((d) => d.url)
          .sort(),
      ).toEqual(urls);
      expect(queue.total()).toBe(0);
    });

    test("queue table - a URL is found in its host's queue only under that host, in either form", () => {
      const { queue } = setup();
      queue.enqueueMany([item("http://a.test/p"), item("https://a.test/s")]);
      expect(queue.has(0, "a.test", "http://a.test/p")).toBe(true);
      expect(queue.has(0, "a.test", "https://a.test/p")).toBe(false);
      expect(queue.has(0, "a.test", "http://a.test/s")).toBe(false);
      expect(queue.has(0, "b.test", "http://a.test/p")).toBe(false);
      expect(queue.has(0, "a.test:80", "http://a.test/p")).toBe(false);
    });

    test("queue table - a replayed row is stored relative too, and journaled whole", () => {
      const { db, queue, notes } = setup();
      queue.put({ ...item("https://a.test/r"), seq: 7 });
      expect(stored(db)).toEqual(["~/r"]);
      expect(notes.at(-1)).toEqual([0, ["q", "a.test", 2, 7, "https://a.test/r", 1, 0]]);
      expect(queue.head(0, "a.test")?.url).toBe("https://a.test/r");
    });

    test("queue table - rows a store before version 6 wrote whole are read, found and limited alike", () => {
      const { db, queue } = setup();
      db.exec(`INSERT INTO queue (partition, host, priority, seq, url, depth, hops, kind) VALUES
        (0, 'a.test', 2, 1, 'http://a.test/old', 1, 0, 0), (0, 'a.test', 3, 2, 'https://a.test/old-tls', 1, 0, 1)`);
      queue.reserveSeq(2);
      expect(queue.head(0, "a.test")).toMatchObject({ url: "http://a.test/old", kind: "page" });
      expect(queue.has(0, "a.test", "http://a.test/old")).toBe(true);
      expect(queue.has(0, "a.test", "https://a.test/old-tls")).toBe(true);
      queue.enqueueMany([item("http://a.test/new", 3)]);
      expect(stored(db)).toEqual(["http://a.test/old", "https://a.test/old-tls", "/new"]);
      expect(queue.inPartition(0, undefined, 10).map((q) => q.url)).toEqual([
        "http://a.test/old",
        "https://a.test/old-tls",
        "http://a.test/new",
      ]);
      queue.keepDropOrder(true);
      expect(
        queue
          .deleteLowest(2)
          .map((d) => d.url)
          .sort(),
      ).toEqual(["http://a.test/new", "https://a.test/old-tls"]);
      expect(queue.head(0, "a.test")?.url).toBe("http://a.test/old");
    });
  });
});
