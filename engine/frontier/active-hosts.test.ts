/**
 * The active hosts, on their own: which hosts are kept in memory and where each one waits, what a host
 * saved by another run is trusted with, and how memory goes back to the store after a rollback.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { FetchTask } from "../../core/model/index.ts";
import { newHostState } from "../../core/politeness/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { ActiveHosts } from "./active-hosts.ts";
import { FrontierState } from "./frontier-state.ts";
import { FrontierStore, type QueuedUrl } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12);
const PARTITIONS = 16;

function setup(opts: { hotHosts?: number } = {}) {
  const clock = { now: T0 };
  const state = new FrontierState({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 1_000),
    policy: { ...DEFAULT_POLICY, minGapMs: 1_000, gapMarginMs: 5 },
    partitions: PARTITIONS,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => "t",
    ...opts,
  });
  return { state, hosts: new ActiveHosts(state), clock };
}

const item = (host: string, path = "/"): Omit<QueuedUrl, "seq"> => ({
  host,
  partition: partitionOf(host, PARTITIONS),
  priority: 2,
  url: `http://${host}${path}`,
  depth: 1,
  hops: 0,
  kind: "page",
});

describe("active hosts", () => {
  test("active hosts - a host saved by another run waits a full gap from now: a request may have been in flight", () => {
    const { state, hosts } = setup();
    state.store.saveHost("old.test", partitionOf("old.test", PARTITIONS), {
      state: { ...newHostState(), nextAllowedAt: T0 - 60_000 },
      pagesToday: null,
      run: "an earlier run",
    });
    expect(hosts.load("old.test").state.nextAllowedAt).toBe(T0 + 1_000 + 5);
    // Saved by this run: taken as it is.
    const mine = hosts.load("old.test");
    hosts.save({ ...mine, state: { ...mine.state, nextAllowedAt: T0 - 1 } });
    expect(hosts.load("old.test").state.nextAllowedAt).toBe(T0 - 1);
    // Never saved: fresh, unless its URLs were queued before this run.
    expect(hosts.load("new.test").state.nextAllowedAt).toBeLessThanOrEqual(T0);
    expect(hosts.load("new.test", true).state.nextAllowedAt).toBe(T0 + 1_000 + 5);
  });

  test("active hosts - a queued URL makes its host active and waiting; with nothing left to do it is forgotten", () => {
    const { state, hosts } = setup();
    const a = item("a.test");
    hosts.queued(a, state.store.enqueue(a));
    expect(state.totalQueued).toBe(1);
    expect(state.waiting.size).toBe(1);
    const entry = hosts.get("a.test")!;
    expect(hosts.headOf(entry)?.url).toBe("http://a.test/");
    state.store.dequeue(entry.head!);
    hosts.dequeued(entry, entry.head!);
    hosts.settle(entry);
    expect(hosts.get("a.test")).toBeUndefined();
    expect(state.waiting.size).toBe(0);
    expect(state.totalQueued).toBe(0);
  });

  test("active hosts - a lean host's next priority follows its queue without keeping its head: a better URL queued, the head fetched", () => {
    const { state, hosts } = setup({ hotHosts: 0 });
    const queue = (path: string, priority: QueuedUrl["priority"]) => {
      const u = { ...item("a.test", path), priority };
      hosts.queued(u, state.store.enqueue(u));
    };
    queue("/deep", 3);
    const entry = hosts.get("a.test")!;
    expect(hosts.headPriority(entry)).toBe(3);
    queue("/shallow", 2);
    queue("/deeper", 3);
    expect(hosts.headPriority(entry)).toBe(2);
    expect(entry.head).toBeUndefined();
    const head = hosts.headOf(entry)!;
    expect(head.url).toBe("http://a.test/shallow");
    state.store.dequeue(head);
    hosts.dequeued(entry, head);
    hosts.settle(entry);
    expect(hosts.headPriority(entry)).toBe(3);
    for (let i = 0; i < 2; i++) {
      const h = hosts.headOf(entry)!;
      state.store.dequeue(h);
      hosts.dequeued(entry, h);
    }
    expect(hosts.headPriority(entry)).toBeUndefined();
  });

  test("active hosts - a URL the store did not add leaves memory as it was", () => {
    const { state, hosts } = setup();
    hosts.queued(item("a.test"), undefined);
    expect(hosts.get("a.test")).toBeUndefined();
    expect(state.totalQueued).toBe(0);
  });

  test("active hosts - a paused host neither waits nor is ready, and waits again once resumed", () => {
    const { state, hosts } = setup();
    const a = item("a.test");
    hosts.queued(a, state.store.enqueue(a));
    hosts.setPaused("a.test", true);
    expect(state.waiting.size).toBe(0);
    expect(state.store.loadHost("a.test")?.state.paused).toBe(true);
    hosts.setPaused("a.test", false);
    expect(state.waiting.size).toBe(1);
  });

  test("active hosts - after a rollback a host is rebuilt from the store: counts it never committed are gone", () => {
    const { state, hosts } = setup();
    const kept = item("a.test", "/kept");
    hosts.queued(kept, state.store.enqueue(kept));
    // Queued in memory by a transaction that then rolled back: the store never got it.
    hosts.queued(item("a.test", "/lost"), 1_000);
    hosts.queued(item("b.test", "/lost"), 1_001);
    expect(state.totalQueued).toBe(3);
    hosts.rollBack(["a.test", "b.test"], false);
    expect(hosts.get("a.test")?.queued).toBe(1);
    expect(hosts.get("b.test")).toBeUndefined();
    expect(state.totalQueued).toBe(1);
  });

  test("active hosts - a rollback that releases a host's fetch frees it, and it waits a full gap from now", () => {
    const { state, hosts, clock } = setup();
    const a = item("a.test");
    hosts.queued(a, state.store.enqueue(a));
    const entry = hosts.get("a.test")!;
    const task: FetchTask = {
      taskId: "t1",
      kind: "page",
      url: a.url,
      host: a.host,
      partition: a.partition,
      depth: 1,
      redirectHops: 0,
      hostGapMs: 1_005,
      issuedAt: T0,
    };
    entry.inFlight = { task };
    state.inFlightCount++;
    clock.now += 500;
    hosts.rollBack(["a.test"], true);
    expect(state.inFlightCount).toBe(0);
    expect(hosts.get("a.test")?.inFlight).toBeUndefined();
    expect(hosts.get("a.test")?.state.nextAllowedAt).toBe(T0 + 500 + 1_000 + 5);
  });
});
