/**
 * Scheduling, on its own (hosts queued straight into the store, their robots.txt stored as read): robots.txt
 * first, one task per host, best priority first, each host at its time, a host parked while its robots.txt
 * is unavailable, forbidden heads written off, due retries back in their queues, and the daily cap.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { Priority } from "../../core/model/index.ts";
import { newHostState } from "../../core/politeness/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { bumpDaily, nextUtcDayStart } from "../../core/traps/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { ActiveHosts } from "./active-hosts.ts";
import { DiskWatch } from "./disk-full.ts";
import { FrontierState } from "./frontier-state.ts";
import { HostSitemaps } from "./host-sitemaps.ts";
import { Scheduling } from "./scheduling.ts";
import { Screening } from "./screening.ts";
import { FrontierStore, type StoredRobots } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12);
const P = 16;
const ALLOW: StoredRobots = { verdict: "allow-all", fetchedAt: T0, expiresAt: T0 + 86_400_000 };

function setup(policy: Partial<PolicyConfig> = {}) {
  const clock = { now: T0 };
  let n = 0;
  const state = new FrontierState({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 1_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "robots", ...policy },
    partitions: P,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  const hosts = new ActiveHosts(state);
  const disk = new DiskWatch(state);
  const scheduling = new Scheduling(state, hosts, new HostSitemaps(state, hosts, new Screening(state)), disk);
  const queue = (url: string, priority: Priority = 2) => {
    const host = hostKeyOf(url);
    const item = { host, partition: partitionOf(host, P), priority, url, depth: 1, hops: 0, kind: "page" as const };
    state.store.tx(() => hosts.queued(item, state.store.enqueue(item)));
  };
  const robots = (host: string, stored: StoredRobots = ALLOW) => state.store.saveRobots(host, partitionOf(host, P), stored);
  return { state, hosts, disk, scheduling, queue, robots, clock };
}

describe("scheduling", () => {
  test("scheduling - asks for robots.txt before anything else of a host, and never hands out two tasks of one host at once", () => {
    const { state, scheduling, queue } = setup();
    queue("http://a.test/");
    queue("http://a.test/x");
    expect(scheduling.nextTasks(10).map((t) => [t.kind, t.url])).toEqual([["robots", "http://a.test/robots.txt"]]);
    expect(scheduling.nextTasks(10)).toEqual([]);
    expect(state.inFlightCount).toBe(1);
  });

  test("scheduling - new hosts' robots.txt takes every other slot, so hosts already read get pages from the start", () => {
    const { scheduling, queue, robots } = setup();
    // A big seed list: many hosts never read, queued before the few whose robots.txt is known.
    for (let i = 0; i < 20; i++) queue(`http://new${i}.test/`, 1);
    for (let i = 0; i < 3; i++) {
      robots(`known${i}.test`);
      queue(`http://known${i}.test/page`, 2);
    }
    const tasks = scheduling.nextTasks(6);
    expect(tasks.map((t) => t.kind)).toEqual(["page", "robots", "page", "robots", "page", "robots"]);
    expect(tasks.filter((t) => t.kind === "page").map((t) => t.host)).toEqual(["known0.test", "known1.test", "known2.test"]);
    // With no known host ready, robots.txt takes every slot: the robots.txt phase still ends.
    expect(scheduling.nextTasks(10).map((t) => t.kind)).toEqual(Array(10).fill("robots"));
  });

  test("scheduling - hosts falling due together are filed a bounded number per call, and the rest come next", () => {
    const { state, scheduling, queue, robots } = setup();
    for (let i = 0; i < 10_000; i++) {
      robots(`h${i}.test`);
      queue(`http://h${i}.test/`, 2);
    }
    expect(state.waiting.size).toBe(10_000);
    // One task asked for: 4,096 hosts filed (not all 10,000), one handed out, the rest still in the heap.
    const first = scheduling.nextTasks(1);
    expect(first).toHaveLength(1);
    expect(state.ready.size).toBe(4_095);
    expect(state.waiting.size).toBe(10_000 - 4_096);
    expect(scheduling.nextWakeAt()).toBe(state.now());
    // Every host is handed out in the end, each once.
    const hosts = new Set<string>([first[0]!.host]);
    for (let round = 0; round < 10 && hosts.size < 10_000; round++) for (const t of scheduling.nextTasks(2_000)) hosts.add(t.host);
    expect(hosts.size).toBe(10_000);
  });

  test("scheduling - when capacity is short, the host whose next URL ranks best goes first", () => {
    const { scheduling, queue, robots } = setup();
    robots("low.test");
    robots("high.test");
    queue("http://low.test/deep/page", 3);
    queue("http://high.test/", 1);
    expect(scheduling.nextTasks(1).map((t) => t.url)).toEqual(["http://high.test/"]);
    expect(scheduling.nextTasks(1).map((t) => t.url)).toEqual(["http://low.test/deep/page"]);
  });

  test("scheduling - a host is handed out at its next allowed time, not before, and its wait is observed", () => {
    const { state, hosts, scheduling, queue, robots, clock } = setup();
    robots("a.test");
    hosts.save({ ...hosts.load("a.test"), state: { ...newHostState(), nextAllowedAt: T0 + 1_000 } });
    queue("http://a.test/");
    expect(scheduling.nextWakeAt()).toBe(T0 + 1_000);
    clock.now = T0 + 999;
    expect(scheduling.nextTasks(10)).toEqual([]);
    clock.now = T0 + 1_000;
    expect(scheduling.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/"]);
    expect(state.histograms.toJSON()["politeness.gap-wait-seconds"]).toMatchObject({ count: 1, sum: 1 });
  });

  test("scheduling - a host whose robots.txt was unavailable is parked until it expires, then robots.txt is asked again", () => {
    const { state, scheduling, queue, robots, clock } = setup();
    robots("down.test", { verdict: "disallow-all", fetchedAt: T0, expiresAt: T0 + 60_000 });
    queue("http://down.test/");
    expect(scheduling.nextTasks(10)).toEqual([]);
    expect(state.counters.toJSON()["robots.host-parked"]).toBe(1);
    clock.now = T0 + 60_000;
    expect(scheduling.nextTasks(10).map((t) => t.kind)).toEqual(["robots"]);
  });

  test("scheduling - heads robots.txt forbids are written off and never handed out", () => {
    const { state, scheduling, queue, robots } = setup();
    robots("a.test", { verdict: "parse", body: "User-agent: *\nDisallow: /private/\n", fetchedAt: T0, expiresAt: T0 + 86_400_000 });
    queue("http://a.test/private/1");
    queue("http://a.test/private/2");
    queue("http://a.test/open");
    expect(scheduling.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/open"]);
    expect(state.store.getUrl(partitionOf("a.test", P), "http://a.test/private/1")?.state).toBe("robots-disallowed");
    expect(state.counters.toJSON()["robots.disallowed"]).toBe(2);
    expect(state.totalQueued).toBe(1);
  });

  test("scheduling - a retry whose time has come goes back into its host's queue and is handed out", () => {
    const { state, scheduling, robots, clock } = setup();
    robots("a.test");
    const partition = partitionOf("a.test", P);
    state.store.tx(() => {
      state.store.setUrlState({ partition, host: "a.test", url: "http://a.test/flaky", depth: 1 }, "retry-wait");
      state.store.schedule({
        dueAt: T0 + 5_000,
        url: "http://a.test/flaky",
        host: "a.test",
        partition,
        priority: 2,
        depth: 1,
        kind: "page",
      });
    });
    expect(scheduling.nextWakeAt()).toBe(T0 + 5_000);
    clock.now = T0 + 5_000;
    expect(scheduling.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/flaky"]);
    expect(state.counters.toJSON()["frontier.rescheduled"]).toBe(1);
    expect(state.store.getUrl(partition, "http://a.test/flaky")?.state).toBe("queued");
  });

  test("scheduling - a host at its daily cap waits for the next UTC day", () => {
    const { state, hosts, scheduling, queue, robots } = setup({ maxPagesPerHostPerDay: 2 });
    robots("a.test");
    hosts.save({ ...hosts.load("a.test"), pagesToday: bumpDaily(null, T0, 2) });
    queue("http://a.test/");
    expect(scheduling.nextTasks(10)).toEqual([]);
    expect(state.counters.toJSON()["frontier.host-daily-cap-waits"]).toBe(1);
    expect(state.waiting.peek()?.at).toBe(nextUtcDayStart(T0));
  });

  test("scheduling - nothing is handed out while draining or while the disk is full", () => {
    const { state, disk, scheduling, queue, robots } = setup();
    robots("a.test");
    queue("http://a.test/");
    state.draining = true;
    expect(scheduling.nextTasks(10)).toEqual([]);
    state.draining = false;
    disk.noteFull(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
    expect(scheduling.nextTasks(10)).toEqual([]);
  });
});
