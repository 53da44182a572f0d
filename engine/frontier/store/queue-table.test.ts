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
    queue.enqueueMany([item("http://a.test/home", 1), item("http://a.test/old", 3), item("http://a.test/new", 3)]);
    const before = notes.length;
    expect(queue.deleteLowest(1).map((d) => d.url)).toEqual(["http://a.test/new"]);
    expect(notes.length).toBe(before);
    expect(queue.total()).toBe(2);
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
});
