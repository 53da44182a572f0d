import { expect, test } from "bun:test";
import { FrontierStore } from "./frontier-store.ts";

test("frontier store - enqueueMany queues every URL in order with rising sequence numbers, across statement chunks", () => {
  const store = FrontierStore.open(":memory:", { recentLog: true });
  const items = Array.from({ length: 150 }, (_, i) => ({
    host: `h${i % 3}.test`,
    partition: i % 3,
    priority: 2 as const,
    url: `http://h${i % 3}.test/p/${i}`,
    depth: 1,
    hops: 0,
  }));
  const seqs = store.enqueueMany(items);
  expect(seqs.length).toBe(150);
  expect(seqs.every((s, i) => s !== undefined && (i === 0 || s > seqs[i - 1]!))).toBe(true);
  expect(store.totalQueued()).toBe(150);
  expect(store.head(1, "h1.test")).toEqual({ ...items[1]!, seq: seqs[1]! });
  store.logAdmittedMany(items.map((i) => i.url));
  expect(store.urlsSince(0, 1000).map((r) => r.url)).toEqual(items.map((i) => i.url));
  expect(store.enqueueMany([])).toEqual([]);
  store.close();
});
