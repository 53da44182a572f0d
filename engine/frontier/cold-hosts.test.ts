/**
 * Cold hosts: past `warmHosts` hosts in memory, hosts with work wait in the store by due time and are warmed
 * as room is made. What a user would notice if it went wrong: a host never fetched (starved behind the warm
 * ones), a page fetched twice or lost, a gap cut short because a host's state was dropped with its entry, a
 * paused host fetched, memory growing with the hosts known. Each test drives a real Frontier on a store,
 * with a clock it holds, and judges by the tasks handed out.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { maxOf, minOf } from "../../core/stats/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 11, 4, 12);
const GAP = 1_000;
const MARGIN = 5;
const PARTITIONS = 16;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(opts: { warmHosts: number; store?: FrontierStore; serving?: number[]; at?: number; maxQueuePerHost?: number }) {
  const clock = { now: opts.at ?? T0 };
  let n = 0;
  const store = opts.store ?? FrontierStore.open(":memory:");
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: {
      ...DEFAULT_POLICY,
      sitemaps: "robots",
      minGapMs: GAP,
      gapMarginMs: MARGIN,
      maxQueuePerHost: opts.maxQueuePerHost ?? DEFAULT_POLICY.maxQueuePerHost,
    },
    partitions: PARTITIONS,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    warmHosts: opts.warmHosts,
    ...(opts.serving ? { serving: opts.serving } : {}),
  });
  return { frontier, clock, store };
}

const link = (u: string, depth = 1): DiscoveredUrl => ({ url: u, host: hostKeyOf(u), depth, redirectHops: 0 });
const hostNames = (n: number) => Array.from({ length: n }, (_, i) => `h${String(i).padStart(2, "0")}.test`);

function answer(task: FetchTask, at: number): FetchResult {
  const base = { taskId: task.taskId, url: task.url, host: task.host, partition: task.partition, startedAt: at, endedAt: at + 10 };
  if (task.kind === "robots")
    return {
      ...base,
      kind: "response",
      taskKind: "robots",
      status: 200,
      linksFound: 0,
      bytes: 10,
      robots: { verdict: "parse", text: "User-agent: *\nAllow: /\n" },
    };
  return { ...base, kind: "response", taskKind: task.kind, status: 200, linksFound: 0, bytes: 100 };
}

interface Issued {
  task: FetchTask;
  at: number;
}

/**
 * Runs the crawl to its end on the frontier's clock: every task answered 10 ms after it was handed out, a home
 * page linking to `/a` and `/b` of its host; the clock jumps to the next wake when nothing is due, until
 * nothing is due within ten minutes. Checks the
 * memory bound after every step; returns every task with when it was handed out.
 */
async function crawl(f: ReturnType<typeof setup>, warmHosts: number, linksOf = (t: FetchTask) => homeLinks(t)): Promise<Issued[]> {
  const { frontier, clock } = f;
  const issued: Issued[] = [];
  let maxInMemory = 0;
  // Refetches come a day later: the crawl of these pages is over long before.
  const horizon = clock.now + 10 * 60_000;
  for (let steps = 0; steps < 10_000; steps++) {
    const tasks = frontier.nextTasks(3);
    const s = frontier.snapshot();
    maxInMemory = Math.max(maxInMemory, s.activeHosts - s.hostsCold);
    if (tasks.length === 0) {
      const wake = frontier.nextWakeAt();
      if (wake === undefined || wake > horizon) break;
      clock.now = Math.max(clock.now + 1, wake);
      continue;
    }
    for (const task of tasks) issued.push({ task, at: clock.now });
    clock.now += 10;
    await frontier.completeMany(tasks.map((t) => ({ result: answer(t, clock.now - 10), links: t.kind === "page" ? linksOf(t) : [] })));
  }
  // Hosts with a fetch in flight are kept besides the warm ones (3 a step here).
  expect(maxInMemory).toBeLessThanOrEqual(warmHosts + 3);
  return issued;
}

function homeLinks(task: FetchTask): DiscoveredUrl[] {
  return new URL(task.url).pathname === "/" ? [link(`http://${task.host}/a`), link(`http://${task.host}/b`)] : [];
}

/** Tasks of one host closer together than its gap, as the server would see them (start to start). */
function shortGaps(issued: readonly Issued[]): string[] {
  const last = new Map<string, number>();
  const short: string[] = [];
  for (const { task, at } of issued) {
    const prev = last.get(task.host);
    if (prev !== undefined && at - prev < GAP + MARGIN) short.push(`${task.host}: ${at - prev} ms`);
    last.set(task.host, at);
  }
  return short;
}

const pages = (issued: readonly Issued[]) => issued.filter((i) => i.task.kind === "page").map((i) => i.task.url);

describe("cold hosts", () => {
  test("past the warm limit hosts wait in the store: each is fetched in its turn, once a page, its gaps kept, memory at the limit", async () => {
    const f = setup({ warmHosts: 4 });
    const hosts = hostNames(20);
    await f.frontier.addSeeds(hosts.map((h) => link(`http://${h}/`, 0)));
    expect(f.frontier.snapshot()).toMatchObject({ activeHosts: 20, hostsCold: 16, queued: 20 });
    const issued = await crawl(f, 4);
    const expected = hosts.flatMap((h) => [`http://${h}/`, `http://${h}/a`, `http://${h}/b`]);
    expect(pages(issued).sort()).toEqual(expected.sort());
    expect(shortGaps(issued)).toEqual([]);
    expect(f.frontier.snapshot()).toMatchObject({ activeHosts: 0, hostsCold: 0, queued: 0 });
    expect(f.frontier.counters.get("frontier.hosts-cooled")).toBeGreaterThan(0);
    // A host taken in from the cold reads its robots.txt and then its home page before it goes back: robots.txt
    // never runs ahead of home pages by more than the hosts in memory (all 20 of them, were robots.txt first).
    let ahead = 0;
    let robotsSoFar = 0;
    let homesSoFar = 0;
    for (const { task } of issued) {
      if (task.kind === "robots") robotsSoFar++;
      else if (new URL(task.url).pathname === "/") homesSoFar++;
      ahead = Math.max(ahead, robotsSoFar - homesSoFar);
    }
    expect(ahead).toBeLessThanOrEqual(4 + 3);
    // No host waits for the warm ones to run dry: every home page comes before any host's third page.
    const lastHome = maxOf(hosts.map((h) => pages(issued).indexOf(`http://${h}/`)));
    const firstThird = minOf(hosts.map((h) => pages(issued).indexOf(`http://${h}/b`)));
    expect(lastHome).toBeLessThan(firstThird);
  });

  test("links to a cold host are counted with it and fetched once it is warmed; the per-host queue limit sees them", async () => {
    const f = setup({ warmHosts: 2, maxQueuePerHost: 3 });
    const hosts = hostNames(6);
    await f.frontier.addSeeds(hosts.map((h) => link(`http://${h}/`, 0)));
    // h05 is cold with its home page queued; of four links to it, one on each of the first pages fetched
    // (results of other hosts, while h05 stays cold), two fit its limit of 3.
    const extra = ["/w", "/x", "/y", "/z"].map((p) => `http://h05.test${p}`);
    const toGive = [...extra];
    const issued = await crawl(f, 2, (t) => {
      const more = t.host !== "h05.test" && toGive.length > 0 ? [link(toGive.shift()!)] : [];
      return [...homeLinks(t), ...more];
    });
    expect(toGive).toEqual([]);
    const h05 = pages(issued).filter((u) => u.startsWith("http://h05.test"));
    expect(h05.filter((u) => extra.includes(u)).sort()).toEqual(["http://h05.test/w", "http://h05.test/x"]);
    expect(h05).toContain("http://h05.test/");
    expect(f.frontier.counters.get("traps.rejected.host-queue-full")).toBeGreaterThanOrEqual(2);
    expect(new Set(pages(issued)).size).toBe(pages(issued).length);
    expect(shortGaps(issued)).toEqual([]);
  });

  test("a restart loads hosts with work past the limit as cold; each waits a gap from the restart, as a warm one does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cold-hosts-"));
    dirs.push(dir);
    const path = join(dir, "frontier.sqlite");
    const first = setup({ warmHosts: 100, store: FrontierStore.open(path) });
    await first.frontier.addSeeds(hostNames(10).map((h) => link(`http://${h}/`, 0)));
    first.store.close();
    const restartAt = T0 + 60_000;
    const again = setup({ warmHosts: 3, store: FrontierStore.open(path), at: restartAt });
    expect(again.frontier.snapshot()).toMatchObject({ activeHosts: 10, hostsCold: 7, queued: 10 });
    const issued = await crawl(again, 3);
    expect(pages(issued).filter((u) => new URL(u).pathname === "/").length).toBe(10);
    // A request of the last run may have been in flight: no host is asked before a gap from the restart.
    expect(minOf(issued.map((i) => i.at))).toBeGreaterThanOrEqual(restartAt + GAP + MARGIN);
    again.store.close();
  });

  test("a cold host paused by the operator is not fetched until resumed", async () => {
    const f = setup({ warmHosts: 2 });
    const hosts = hostNames(5);
    await f.frontier.addSeeds(hosts.map((h) => link(`http://${h}/`, 0)));
    f.frontier.setHostPaused("h04.test", true);
    const before = await crawl(f, 3);
    expect(before.some((i) => i.task.host === "h04.test")).toBe(false);
    expect(pages(before).length).toBe(12);
    f.frontier.setHostPaused("h04.test", false);
    const after = await crawl(f, 3);
    expect(pages(after).sort()).toEqual(["http://h04.test/", "http://h04.test/a", "http://h04.test/b"]);
  });

  test("a partition given up takes its cold hosts with it; their URLs stay in the store for the next owner", async () => {
    const all = Array.from({ length: PARTITIONS }, (_, p) => p);
    const f = setup({ warmHosts: 2, serving: all });
    const hosts = hostNames(12);
    await f.frontier.addSeeds(hosts.map((h) => link(`http://${h}/`, 0)));
    const cold = f.frontier.snapshot().hostsCold;
    expect(cold).toBe(10);
    const kept = all.filter((p) => p !== partitionOf("h11.test", PARTITIONS));
    f.frontier.setServing(kept);
    const gone = hosts.filter((h) => !kept.includes(partitionOf(h, PARTITIONS)));
    expect(f.frontier.snapshot().activeHosts).toBe(12 - gone.length);
    const issued = await crawl(f, 2);
    expect(issued.some((i) => gone.includes(i.task.host))).toBe(false);
    expect(f.store.queuedForHost(partitionOf("h11.test", PARTITIONS), "h11.test")).toBe(1);
  });
});
