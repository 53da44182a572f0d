import { expect, test } from "bun:test";
import { FrontierStore } from "./frontier-store.ts";

const items = Array.from({ length: 150 }, (_, i) => ({
  host: `h${i % 3}.test`,
  partition: i % 3,
  priority: 2 as const,
  url: `http://h${i % 3}.test/p/${i}`,
  depth: 1,
  hops: 0,
  kind: i % 5 === 1 ? ("media" as const) : ("page" as const),
}));

test("frontier store - enqueueMany queues every URL in order with rising sequence numbers and its kind, across statement chunks", () => {
  const store = FrontierStore.open(":memory:", { recentLog: true });
  const seqs = store.enqueueMany(items);
  expect(seqs.length).toBe(150);
  expect(seqs.every((s, i) => s !== undefined && (i === 0 || s > seqs[i - 1]!))).toBe(true);
  expect(store.totalQueued()).toBe(150);
  expect(store.head(1, "h1.test")).toEqual({ ...items[1]!, seq: seqs[1]!, job: 0 });
  expect(store.head(1, "h1.test")!.kind).toBe("media");
  expect(store.head(0, "h0.test")!.kind).toBe("page");
  store.logAdmittedMany(items.map((i) => i.url));
  expect(store.urlsSince(0, 1000).map((r) => r.url)).toEqual(items.map((i) => i.url));
  expect(store.enqueueMany([])).toEqual([]);
  store.close();
});

test("frontier store - enqueueMany journals exactly what enqueue would, one change per row added", () => {
  const many = FrontierStore.open(":memory:", { journal: true });
  const one = FrontierStore.open(":memory:", { journal: true });
  many.tx(() => many.enqueueMany(items));
  one.tx(() => items.forEach((i) => one.enqueue(i)));
  for (const p of [0, 1, 2]) {
    const changes = (s: FrontierStore) => s.journal!.rows(p, 0, 100).flatMap((r) => JSON.parse(r.body));
    expect(changes(many).length).toBe(50);
    expect(changes(many)).toEqual(changes(one));
  }
  many.close();
  one.close();
});

test("frontier store - a row enqueueMany could not add (its key taken by another store's row) gets no number and no journal change", () => {
  const store = FrontierStore.open(":memory:", { journal: true });
  // A replayed row at the sequence number the next enqueue will be given, same host and priority.
  store.tx(() => store.putQueued({ ...items[0]!, url: "http://h0.test/replayed", seq: 1 }));
  const journaled = () => store.journal!.rows(0, 0, 100).flatMap((r) => JSON.parse(r.body) as unknown[][]);
  const before = journaled().length;
  const seqs = store.tx(() => store.enqueueMany(items.slice(0, 6)));
  expect(seqs).toEqual([undefined, 2, 3, 4, 5, 6]);
  expect(store.totalQueued()).toBe(6);
  expect(store.head(0, "h0.test")!.url).toBe("http://h0.test/replayed");
  // Partition 0 got items 0 and 3; only item 3 went in.
  expect(journaled().slice(before)).toEqual([["q", "h0.test", 2, 4, items[3]!.url, 1, 0]]);
  store.close();
});
