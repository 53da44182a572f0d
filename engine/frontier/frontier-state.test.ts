/**
 * The state the frontier's parts share: which partitions it serves, and totals that start from the store and
 * follow it when rows come in behind the frontier's back (a handoff, a rebuild from a replica).
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import { FrontierState } from "./frontier-state.ts";
import { FrontierStore } from "./store/frontier-store.ts";

function state(store = FrontierStore.open(":memory:"), serving?: number[]) {
  return new FrontierState({
    store,
    seen: LocalBloomSeenSet.open(undefined, 1_000),
    policy: DEFAULT_POLICY,
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => 0,
    newTaskId: () => "t",
    ...(serving ? { serving } : {}),
  });
}

const queued = (url: string, partition: number) => ({
  host: "a.test",
  partition,
  priority: 2 as const,
  url,
  depth: 1,
  hops: 0,
  kind: "page" as const,
});

describe("frontier state", () => {
  test("frontier state - without a list of partitions it serves every one; with one, only those", () => {
    expect([0, 7, 15].map((p) => state().serves(p))).toEqual([true, true, true]);
    expect([0, 7, 15].map((p) => state(undefined, [7]).serves(p))).toEqual([false, true, false]);
  });

  test("frontier state - totals start from the store, and a recount takes in rows and scope roots that came in behind its back", () => {
    const store = FrontierStore.open(":memory:");
    store.tx(() => store.enqueue(queued("http://a.test/1", 3)));
    const s = state(store);
    expect(s.totalQueued).toBe(1);
    store.tx(() => {
      store.enqueue(queued("http://a.test/2", 3));
      store.sitemaps.offer(
        { partition: 3, host: "a.test", url: "http://a.test/sitemap.xml", grants: [], fromIndex: false, depth: 0, hops: 0 },
        0,
        1_000,
      );
      store.scopeRoots.add([{ host: "seed.test", partition: 3 }]);
    });
    expect(s.scope.roots.hasHost("seed.test")).toBe(false);
    s.recount();
    expect([s.totalQueued, s.totalSitemaps]).toEqual([2, 1]);
    expect(s.scope.roots.hasHost("seed.test")).toBe(true);
  });
});
