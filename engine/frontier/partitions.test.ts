/**
 * The partitions a frontier serves, on their own: only the hosts of served partitions are in memory, a
 * partition given up leaves memory (its rows stay in the store), one taken on is loaded with its hosts
 * waiting a gap from now, and one rebuilt from a replica waits out a fetch its lost holder may have started.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { FetchTask } from "../../core/model/index.ts";
import type { SeenSet } from "../../core/ports/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { ActiveHosts } from "./active-hosts.ts";
import { FrontierState } from "./frontier-state.ts";
import { Partitions } from "./partitions.ts";
import { SeenRecovery } from "./seen-recovery.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12);
const P = 16;
const policy = { ...DEFAULT_POLICY, minGapMs: 1_000, gapMarginMs: 5 };
// Two hosts in different partitions.
const A = "a.test";
const B = ["b.test", "c.test", "d.test", "e.test"].find((h) => partitionOf(h, P) !== partitionOf(A, P))!;
const pA = partitionOf(A, P);
const pB = partitionOf(B, P);

function storeWithWork(): FrontierStore {
  const store = FrontierStore.open(":memory:");
  store.tx(() => {
    for (const host of [A, B])
      store.enqueue({ host, partition: partitionOf(host, P), priority: 2, url: `http://${host}/`, depth: 0, hops: 0, kind: "page" });
  });
  return store;
}

function setup(serving: number[] | undefined, store = storeWithWork()) {
  const clock = { now: T0 };
  const released: number[] = [];
  const bloom = LocalBloomSeenSet.open(undefined, 1_000);
  const seen: SeenSet = {
    checkAndAdd: (p, keys) => bloom.checkAndAdd(p, keys),
    release: (p) => void released.push(p),
    close: () => bloom.close(),
  };
  const state = new FrontierState({
    store,
    seen,
    policy,
    partitions: P,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => "t",
    ...(serving ? { serving } : {}),
  });
  const hosts = new ActiveHosts(state);
  const recovery = new SeenRecovery({ seen, store, counters: state.counters, serves: (p) => state.serves(p), now: () => clock.now });
  const partitions = new Partitions(state, hosts, recovery);
  partitions.loadServed();
  return { state, hosts, partitions, clock, released };
}

const task = (host: string): FetchTask => ({
  taskId: `t-${host}`,
  kind: "page",
  url: `http://${host}/`,
  host,
  partition: partitionOf(host, P),
  depth: 0,
  redirectHops: 0,
  hostGapMs: 1_005,
  issuedAt: T0,
});

describe("partitions", () => {
  test("partitions - at start only the hosts with work in the partitions served are in memory", () => {
    expect([A, B].map((h) => setup(undefined).hosts.get(h) !== undefined)).toEqual([true, true]);
    const { hosts } = setup([pA]);
    expect([A, B].map((h) => hosts.get(h) !== undefined)).toEqual([true, false]);
    // Queued before this run: a request may have been in flight when the last run died.
    expect(hosts.get(A)!.state.nextAllowedAt).toBe(T0 + 1_000 + 5);
  });

  test("partitions - a partition given up leaves memory, but a host with a fetch in flight stays until it ends", () => {
    const { state, hosts, partitions, released } = setup([pA, pB]);
    hosts.get(B)!.inFlight = { task: task(B) };
    state.inFlightCount++;
    expect(partitions.inFlightIn(pB)).toBe(1);
    partitions.setServing([]);
    expect(hosts.get(A)).toBeUndefined();
    expect(hosts.get(B)).toBeDefined();
    expect(released.sort()).toEqual([pA, pB].sort());
    expect(state.store.totalQueued()).toBe(2);
  });

  test("partitions - a partition taken on is loaded, its hosts waiting a gap from now", () => {
    const { hosts, partitions, clock } = setup([pA]);
    clock.now += 10_000;
    partitions.setServing([pA, pB]);
    expect(hosts.get(B)!.state.nextAllowedAt).toBe(T0 + 10_000 + 1_000 + 5);
  });

  test("partitions - a partition rebuilt from a replica waits until a fetch its lost holder started must have ended", () => {
    const { hosts, partitions, clock } = setup([pA]);
    const lostAt = T0 - 1_000;
    partitions.restored(pB, lostAt);
    clock.now += 100;
    partitions.setServing([pA, pB]);
    const fetchEndedBy = lostAt + policy.connectTimeoutMs + policy.responseTimeoutMs;
    expect(hosts.get(B)!.state.nextAllowedAt).toBe(Math.max(clock.now, fetchEndedBy) + 1_000 + 5);
    expect(hosts.get(B)!.state.nextAllowedAt).toBeGreaterThan(T0 + 100 + 1_000 + 5);
  });
});
