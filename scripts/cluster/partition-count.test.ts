import { expect, test } from "bun:test";
import { clusterPartitions } from "./partition-count.ts";

test("a new DIR gets 8 partitions per frontier node, at least 16, unless a count is given", () => {
  expect(clusterPartitions({ given: undefined, layout: undefined, frontiers: 1 })).toEqual({ partitions: 16 });
  expect(clusterPartitions({ given: undefined, layout: undefined, frontiers: 2 })).toEqual({ partitions: 16 });
  expect(clusterPartitions({ given: undefined, layout: undefined, frontiers: 3 })).toEqual({ partitions: 24 });
  expect(clusterPartitions({ given: 64, layout: undefined, frontiers: 2 })).toEqual({ partitions: 64 });
});

test("a DIR that ran before keeps its partition count, whatever the frontier count is now", () => {
  expect(clusterPartitions({ given: undefined, layout: { partitions: 16 }, frontiers: 5 })).toEqual({ partitions: 16 });
  expect(clusterPartitions({ given: 16, layout: { partitions: 16 }, frontiers: 2 })).toEqual({ partitions: 16 });
});

test("a DIR whose layout predates keeping the count ran with the old default, 64", () => {
  expect(clusterPartitions({ given: undefined, layout: {}, frontiers: 2 })).toEqual({ partitions: 64 });
  expect(clusterPartitions({ given: 64, layout: {}, frontiers: 2 })).toEqual({ partitions: 64 });
});

test("another count for a DIR that has one is refused, naming both and what to do", () => {
  const refused = clusterPartitions({ given: 32, layout: { partitions: 16 }, frontiers: 2 });
  expect(refused).toEqual({
    problem:
      "--partitions 32: this DIR's cluster has 16 partitions, fixed for its life (every node and the ring use them); " +
      "leave --partitions out (or give 16), or give another --dir for a new cluster",
  });
  expect(clusterPartitions({ given: 16, layout: {}, frontiers: 2 })).toMatchObject({
    problem: expect.stringContaining("has 64 partitions"),
  });
});
